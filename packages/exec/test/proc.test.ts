import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LINUX, needs } from '@harness/test-utils';
import { afterEach, expect, it } from 'vitest';
import { procStatFields } from '../src/internal';

// Real processes read through the real /proc: the fields after the command name, whatever that name
// holds, and nothing for a process that is gone.

const started: number[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function sleeper(file: string): Promise<number> {
  const child = spawn(file, ['30'], { detached: true, stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('spawn', () => {
      started.push(child.pid as number);
      resolve(child.pid as number);
    });
  });
}

needs(LINUX).describe('procStatFields', () => {
  it("reads a live process's state, parent and group from /proc/<pid>/stat", async () => {
    const pid = await sleeper('sleep');
    const fields = procStatFields(pid);
    expect(fields?.[0]).toMatch(/^[RSD]$/);
    expect(fields?.[1]).toBe(String(process.pid));
    // Detached: the child leads its own group.
    expect(fields?.[2]).toBe(String(pid));
    // Field 22, the start time in clock ticks after boot, is what running records compare.
    expect(fields?.[19]).toMatch(/^[0-9]+$/);
  });

  it('reads the fields after a command name that holds spaces and parentheses', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'exec-proc-'));
    dirs.push(dir);
    const odd = join(dir, 'a) b (c');
    copyFileSync('/bin/sleep', odd);
    const pid = await sleeper(odd);
    const fields = procStatFields(pid);
    expect(fields?.[1]).toBe(String(process.pid));
    expect(fields?.[2]).toBe(String(pid));
  });

  it('gives nothing for a pid no process holds', async () => {
    const child = spawn('true', [], { stdio: 'ignore' });
    const pid = child.pid as number;
    await new Promise((resolve) => child.once('exit', resolve));
    expect(procStatFields(pid)).toBeUndefined();
  });

  it('gives the same fields as reading the whole file', () => {
    const stat = readFileSync('/proc/self/stat', 'latin1');
    const whole = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const fields = procStatFields('self');
    // The state and the identifiers (pid, group, session, start time) do not change between reads.
    for (const i of [1, 2, 3, 19]) expect(fields?.[i]).toBe(whole[i]);
  });
});
