import 'reflect-metadata';
import { runCli } from './cli';

// `npm run ops -- <command>`: see docs/operator-cli.md.
// A reader that stops early (`… | head`) closes stdout; the command still finishes (a dlq show still gives its messages back).
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') throw e;
});
runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`error: ${String(e)}\n`);
    process.exitCode = 1;
  },
);
