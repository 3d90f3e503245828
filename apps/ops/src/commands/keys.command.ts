import { Command } from 'commander';
import { AFFILIATE_ENDPOINTS, BUYER_ENDPOINTS } from '@lr/contracts';
import type { KeyOwner } from '@lr/persistence';
import { CliError, EXIT } from '../cli-error';
import { CliContext } from '../context';
import { withDatabase } from '../database';
import { announceKeysChanged } from './announce-keys';
import { issueApiKey, listApiKeys, revokeApiKey } from '../keys/api-keys.service';
import { parseExpiresAt, parseLimitSpecs } from '../keys/key-options';

const collect = (value: string, previous: string[]) => previous.concat(value);

/** `--affiliate <uuid>` or `--school <uuid>`: exactly one (a usage error otherwise, named as commander names a missing option). */
function ownerOption(opts: { affiliate?: string; school?: string }): KeyOwner {
  if (opts.affiliate !== undefined && opts.school !== undefined)
    throw new CliError("options '--affiliate <uuid>' and '--school <uuid>' cannot be used together", EXIT.usage);
  if (opts.school !== undefined) return { schoolId: opts.school };
  if (opts.affiliate !== undefined) return { affiliateId: opts.affiliate };
  throw new CliError(
    "required option '--affiliate <uuid>' not specified (or '--school <uuid>' for a school's key to the buyer API)",
    EXIT.usage,
  );
}

/** `keys issue|revoke|list` (ARCHITECTURE.md, Operator interface; a school's keys: docs/returns.md). */
export function registerKeysCommands(program: Command, ctx: CliContext): void {
  const keys = program.command('keys').description("affiliates' and schools' API keys");

  keys
    .command('issue')
    .description('issue a key; prints {"id","key"} once: the raw key is never shown again')
    .option('--affiliate <uuid>', 'affiliate the key belongs to (the affiliate API)')
    .option('--school <uuid>', 'school the key belongs to (the buyer API: returns)')
    .option('--expires-at <iso>', 'expiry, e.g. 2027-01-31 or 2027-01-31T12:00:00Z')
    .option(
      '--limit <endpoint=per-minute/burst>',
      `rate-limit override, repeatable; endpoints: ${AFFILIATE_ENDPOINTS.join(', ')} (an affiliate's key), ${BUYER_ENDPOINTS.join(', ')} (a school's)`,
      collect,
      [],
    )
    .action(async (opts: { affiliate?: string; school?: string; expiresAt?: string; limit: string[] }) => {
      const owner = ownerOption(opts);
      const limits = parseLimitSpecs(opts.limit, 'schoolId' in owner ? BUYER_ENDPOINTS : AFFILIATE_ENDPOINTS);
      const expiresAt = opts.expiresAt === undefined ? null : parseExpiresAt(opts.expiresAt);
      const issued = await withDatabase(ctx.databaseUrl(), (ds) => issueApiKey(ds, { ...owner, expiresAt, limits }));
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
    .description("list an affiliate's or a school's keys as JSON lines (never the key or its hash)")
    .option('--affiliate <uuid>', 'affiliate whose keys to list')
    .option('--school <uuid>', 'school whose keys to list')
    .action(async (opts: { affiliate?: string; school?: string }) => {
      const owner = ownerOption(opts);
      const listed = await withDatabase(ctx.databaseUrl(), (ds) => listApiKeys(ds, owner));
      for (const key of listed) ctx.io.out(JSON.stringify(key));
    });
}
