import type { DataKeys } from '../repositories/data-keys.repository';
import type { KeyWrapper } from './key-wrapper';

/**
 * Rotation (docs/security.md): every data key not wrapped under the current
 * master key is unwrapped with its own and wrapped again under the current
 * one, in batches; the data they encrypt is not touched. Safe to repeat and
 * to interrupt: each key is rewritten only if it is still under the master
 * key it was read with. Answers how many keys moved.
 */
export async function rewrapDataKeys(keys: DataKeys, wrapper: KeyWrapper, batch = 500, progress?: (done: number) => void): Promise<number> {
  let after = '00000000-0000-0000-0000-000000000000';
  let done = 0;
  for (;;) {
    const page = await keys.toRewrap(wrapper.keyId, after, batch);
    if (page.length === 0) return done;
    const moved = await Promise.all(
      page.map(async (k) => ({
        id: k.id,
        keyId: wrapper.keyId,
        was: k.keyId,
        wrapped: await wrapper.wrap(await wrapper.unwrap(k.wrapped, k.keyId)),
      })),
    );
    await keys.rewrap(wrapper.keyId, moved);
    done += moved.length;
    progress?.(done);
    after = page[page.length - 1].id;
  }
}
