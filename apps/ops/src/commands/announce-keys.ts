import { announceKeyChange } from '@lr/redis';
import { CliContext } from '../context';

/**
 * Gateways cache API keys for API_KEY_CACHE_MS and campaigns for a few
 * seconds; this tells them through Redis to forget a key (its id) or
 * everything ("*", after a catalog change) now. If Redis cannot be reached
 * the change still takes effect within that time, and the operator is told so.
 */
export async function announceKeysChanged(ctx: CliContext, keyId: string): Promise<void> {
  const { url, keyPrefix } = ctx.redis();
  await announceKeyChange(url, keyPrefix, keyId).catch((e: Error) =>
    ctx.io.err(
      `could not tell the gateways through Redis (${e.message}); they see the change within API_KEY_CACHE_MS (1 s by default) for keys and 5 s for campaigns`,
    ),
  );
}
