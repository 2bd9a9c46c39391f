// How this CLI starts itself in a child process (a demo's serve, a runner run's governed tools).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `[node, <the harness entry>]`: the argv, up to the verb, that runs this CLI again. */
export function selfArgv(): [string, string] {
  // Chunks sit beside the entry, so the bin is found next to this module.
  return [process.execPath, join(dirname(fileURLToPath(import.meta.url)), 'harness.js')];
}
