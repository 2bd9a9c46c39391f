// Two processes starting a broker on one path at once, where a stale socket was left: both may find
// it stale, and whichever removes it second must not fail on its absence.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { expect, it } from 'vitest';
import { claimSocketPath } from '../src/broker-socket';

it('frees a stale socket when two starts claim it at once, neither failing on the other’s removal', async () => {
  const dir = tempDir('host-claim-');
  try {
    const path = join(dir.path, 'broker.sock');
    // A socket file nothing listens on: bound by a process that then exited.
    execFileSync('python3', [
      '-c',
      'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])',
      path,
    ]);
    expect(lstatSync(path).isSocket()).toBe(true);
    await expect(Promise.all([claimSocketPath(path), claimSocketPath(path)])).resolves.toEqual([
      undefined,
      undefined,
    ]);
    expect(existsSync(path)).toBe(false);
  } finally {
    dir.cleanup();
  }
});
