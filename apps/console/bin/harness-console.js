#!/usr/bin/env node
// The committed launcher of the `harness-console` bin: runs the built entry, or says how to build it.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli.js', import.meta.url);
if (existsSync(entry)) {
  const { consoleMain } = await import(entry.href);
  process.exitCode = await consoleMain(process.argv.slice(2));
} else {
  process.stderr.write('harness-console: not built yet; run `pnpm build` in the repository first\n');
  process.exitCode = 70;
}
