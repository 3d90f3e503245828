import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { basename, dirname, join } from 'node:path';

/**
 * Preloaded into an app (`NODE_OPTIONS=--require …/cpu-profile.js`, since node
 * refuses --cpu-prof in NODE_OPTIONS) when BENCH_CPU_PROF_DIR is set: samples
 * the CPU from start-up and writes `<app>-<pid>.cpuprofile` into that folder on
 * SIGTERM, before the app's own graceful shutdown. Open it in Chrome DevTools
 * (Performance) or speedscope.
 */
const dir = process.env.BENCH_CPU_PROF_DIR;
if (dir) {
  const entry = process.argv[1] ?? 'node';
  // apps/<app>/src/main.js -> <app>; bench/baselines/<name>.js -> <name>
  const app = entry.includes('/baselines/') ? basename(entry, '.js') : basename(dirname(dirname(entry)));
  const session = new Session();
  session.connect();
  session.post('Profiler.enable', () => session.post('Profiler.start'));
  process.once('SIGTERM', () => {
    session.post('Profiler.stop', (err, result) => {
      if (err) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${app}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
