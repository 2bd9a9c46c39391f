#!/usr/bin/env node
// The committed launcher of the `loom` bin. It exists before any build, so installing the
// workspace links the bin without a warning; it runs the built entry, or says how to build it.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/loom.js', import.meta.url);
if (existsSync(entry)) {
  await import(entry.href);
} else {
  process.stderr.write('loom: not built yet; run `pnpm build` in the repository first\n');
  process.exitCode = 70;
}
