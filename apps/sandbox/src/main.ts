import { loadConfig } from '@lr/config';
import { createSandboxApp } from './sandbox-app';

/** Simulated school systems and partner networks (docs/sandbox.md), on SANDBOX_PORT (4100). */
async function main(): Promise<void> {
  await createSandboxApp({ config: loadConfig('sandbox') });
}

main().catch((err: unknown) => {
  // The logger may not exist yet (bad config): say why on stderr and stop.
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
