// Every standard command's signature, as a model reads it, pinned in one golden file: a change to a
// standard pack that changes what a model sees shows up here, in review. `UPDATE_GOLDEN=1` rewrites
// the file after a deliberate change.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { appDir, runCli, sandbox } from './helpers';

const golden = join(appDir, 'test', 'fixtures', 'standard-signatures.txt');

/** The signature lines of `packs list --standard`, without what depends on this machine. */
function signatures(stdout: string): string {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('  ') && !line.startsWith('  (left out'))
    .map((line) => line.trim().replace(/, runs \S+$/, ''))
    .join('\n');
}

it('lists the signature of every standard command exactly as the golden file pins it', async () => {
  const box = sandbox();
  try {
    const r = await runCli(['packs', 'list', '--standard'], { home: box.home });
    expect(r.code, r.stderr).toBe(0);
    const lines = `${signatures(r.stdout)}\n`;
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(golden, lines);
    expect(lines).toBe(readFileSync(golden, 'utf8'));
  } finally {
    box.cleanup();
  }
});
