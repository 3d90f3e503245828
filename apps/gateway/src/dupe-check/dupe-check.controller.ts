import { Body, Controller, HttpCode, Inject, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { findAffiliate, isOfferOfAffiliate } from '@lr/persistence';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { Endpoint } from '../auth/endpoint.decorator';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiError } from '../http/api-error';
import { dependency } from '../http/dependency';
import { requireObjectBody } from '../http/validation';

export const DUPE_CHECK_PATH = '/api/v1/engine/dupe-check';
export const DUPE_CHECK_BODY_LIMIT = 16 * 1024;
const RAW_KEYS = ['email', 'phone', 'first_name', 'last_name', 'zip', 'address', 'dob'] as const;
const HASHED_KEYS = ['email', 'phone', 'last_name', 'zip', 'dob', 'birth_year', 'grad_year', 'ip'] as const;

@Controller('api/v1/engine')
export class DupeCheckController {
  constructor(
    private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The front door of the duplicate pre-check (contract: POST /api/v1/engine/dupe-check). */
  @Post('dupe-check')
  @Endpoint('dupe-check')
  @UseGuards(ApiKeyGuard, RateLimitGuard)
  @HttpCode(200)
  async check(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Body() body: unknown) {
    const principal = req.principal!;
    const timeout = this.config.dependencyTimeoutMs;
    const affiliate = await dependency('postgres', timeout, () => findAffiliate(this.ds, principal.affiliateId));
    if (!affiliate?.dupeCheck) {
      // The contract's one plain body: the pre-check is not available on this account.
      void reply.status(404);
      return { error: 'dupe_check_not_available' };
    }
    const obj = requireObjectBody(body);
    if (obj.offer_id !== undefined && (typeof obj.offer_id !== 'string' || !isUUID(obj.offer_id))) {
      throw ApiError.invalidField('offer_id', 'offer_id must be a UUID');
    }
    const hashed = obj.hashed;
    if (hashed !== undefined && (hashed === null || typeof hashed !== 'object' || Array.isArray(hashed))) {
      throw ApiError.invalidField('hashed', 'hashed must be an object');
    }
    for (const [k, v] of Object.entries((hashed as Record<string, unknown>) ?? {})) {
      if ((HASHED_KEYS as readonly string[]).includes(k) && (typeof v !== 'string' || !/^[0-9a-fA-F]{64}$/.test(v))) {
        throw ApiError.invalidField(`hashed.${k}`, `hashed.${k} must be a lower-case hex SHA-256`);
      }
    }
    const usable =
      RAW_KEYS.some((k) => typeof obj[k] === 'string' && (obj[k] as string).trim() !== '') ||
      HASHED_KEYS.some((k) => typeof (hashed as Record<string, unknown> | undefined)?.[k] === 'string');
    if (!usable) throw ApiError.malformed(400, 'No usable lead field');
    if (typeof obj.offer_id === 'string') {
      const offerId = String(obj.offer_id).toLowerCase();
      const owned = await dependency('postgres', timeout, () => isOfferOfAffiliate(this.ds, offerId, principal.affiliateId));
      if (!owned) throw ApiError.forbidden();
    }
    throw new ApiError(503, 'UNAVAILABLE', 'Duplicate pre-check is not enabled on this deployment yet', { retryable: false }, 'failed');
  }
}
