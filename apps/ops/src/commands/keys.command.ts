import { Command } from 'commander';
import { ENDPOINTS } from '@lr/contracts';
import { CliContext } from '../context';
import { withDatabase } from '../database';
import { announceKeysChanged } from './announce-keys';
import { issueApiKey, listApiKeys, revokeApiKey } from '../keys/api-keys.service';
import { parseExpiresAt, parseLimitSpecs } from '../keys/key-options';

const collect = (value: string, previous: string[]) => previous.concat(value);

/** `keys issue|revoke|list` (ARCHITECTURE.md, Operator interface). */
export function registerKeysCommands(program: Command, ctx: CliContext): void {
  const keys = program.command('keys').description("affiliates' API keys");

  keys
    .command('issue')
    .description('issue a key; prints {"id","key"} once: the raw key is never shown again')
    .requiredOption('--affiliate <uuid>', 'affiliate the key belongs to')
    .option('--expires-at <iso>', 'expiry, e.g. 2027-01-31 or 2027-01-31T12:00:00Z')
    .option('--limit <endpoint=per-minute/burst>', `rate-limit override, repeatable; endpoints: ${ENDPOINTS.join(', ')}`, collect, [])
    .action(async (opts: { affiliate: string; expiresAt?: string; limit: string[] }) => {
      const limits = parseLimitSpecs(opts.limit);
      const expiresAt = opts.expiresAt === undefined ? null : parseExpiresAt(opts.expiresAt);
      const issued = await withDatabase(ctx.databaseUrl(), (ds) => issueApiKey(ds, { affiliateId: opts.affiliate, expiresAt, limits }));
      ctx.io.out(JSON.stringify({ id: issued.id, key: issued.key }));
    });

  keys
    .command('revoke')
    .argument('<key-id>', 'the id printed by keys issue')
    .description('revoke a key at once')
    .action(async (keyId: string) => {
      const revoked = await withDatabase(ctx.databaseUrl(), (ds) => revokeApiKey(ds, keyId));
      if (!revoked.newly_revoked) ctx.io.err(`key ${revoked.id} was already revoked at ${revoked.revoked_at}`);
      await announceKeysChanged(ctx, revoked.id);
      ctx.io.out(JSON.stringify({ id: revoked.id, revoked_at: revoked.revoked_at }));
    });

  keys
    .command('list')
    .description("list an affiliate's keys as JSON lines (never the key or its hash)")
    .requiredOption('--affiliate <uuid>', 'affiliate whose keys to list')
    .action(async (opts: { affiliate: string }) => {
      const listed = await withDatabase(ctx.databaseUrl(), (ds) => listApiKeys(ds, opts.affiliate));
      for (const key of listed) ctx.io.out(JSON.stringify(key));
    });
}
