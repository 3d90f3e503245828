import 'reflect-metadata';
import { runCli } from './cli';

// `npm run ops -- <command>`: see docs/operator-cli.md.
runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`error: ${String(e)}\n`);
    process.exitCode = 1;
  },
);
