import { Command } from 'commander';
import { ConfigKeyWrapper, rewrapDataKeys } from '@lr/persistence';
import { CliContext } from '../context';
import { withSealer } from '../database';

/** `data-keys rewrap|status`: the key store's data keys under the master keys (docs/security.md, Encryption at rest). */
export function registerDataKeysCommands(program: Command, ctx: CliContext): void {
  const group = program.command('data-keys').description('the data keys that encrypt contact data, and the master keys that wrap them');

  group
    .command('rewrap')
    .description('wrap every data key under the current master key (DATA_MASTER_KEY_ID); the data is not rewritten')
    .action(() =>
      withSealer(ctx, async (_sealer, keys) => {
        const wrapper = new ConfigKeyWrapper(ctx.masterKeys());
        const moved = await rewrapDataKeys(keys, wrapper, 500, (done) => ctx.io.err(`rewrapped ${done}`));
        ctx.io.out(`Rewrapped ${moved} data keys under ${wrapper.keyId}.`);
        for (const k of await keys.byMasterKey()) ctx.io.out(`${k.keyId}\t${k.keys}`);
      }),
    );

  group
    .command('status')
    .description('how many data keys each master key wraps (a master key with none can be retired)')
    .action(() =>
      withSealer(ctx, async (_sealer, keys) => {
        ctx.io.out(`current master key: ${ctx.masterKeys().currentId}`);
        for (const k of await keys.byMasterKey()) ctx.io.out(`${k.keyId}\t${k.keys}`);
      }),
    );
}
