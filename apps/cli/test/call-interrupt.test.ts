// Ctrl-C on `harness call`: the call is cancelled, not the process killed under its broker. The
// command's process ends, the result says cancelled, the audit records a cancelled run (not a
// crashed broker), and the exit code is 130.
import { execFile } from 'node:child_process';
import { tailAudit } from '@harness/host';
import { until } from '@harness/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { baseEnv, bin, sandbox, slowWorkspace } from './helpers';

const box = sandbox();
afterAll(() => box.cleanup());

describe('harness call interrupted', () => {
  it('cancels the running command on Ctrl-C, prints the cancelled result, audits it as cancelled and exits 130', async () => {
    const input = JSON.stringify({ command: 'slow.wait', args: { seconds: 20 } });
    const args = [
      'call',
      'run_read_command',
      input,
      '--workspace',
      slowWorkspace,
      '--instance',
      box.instance,
    ];
    const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [bin, ...args],
        { env: baseEnv(box.home) },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
      );
      // Interrupt once the command's process has started: its start is on the audit record.
      void until(
        async () => (await tailAudit(box.instance, 50).catch(() => [])).some((e) => e.phase === 'start'),
        'the start of slow.wait on the audit record',
      ).then(() => child.kill('SIGINT'));
    });
    const r = await done;
    expect(r.code).toBe(130);
    expect(r.stderr).toContain(
      'harness call: interrupted: cancelling the call (Ctrl-C again to quit at once)\n',
    );
    const result = JSON.parse(r.stdout) as {
      outcome: { reason?: string };
      entry: { value: { status: string } };
    };
    expect([result.outcome.reason, result.entry.value.status]).toEqual(['cancelled', 'cancelled']);
    const run = (await tailAudit(box.instance, 50)).find(
      (e) => e.command === 'slow.wait' && e.phase === 'run',
    );
    expect([run?.outcome, run?.reason]).toEqual(['cancelled', 'cancelled']);
  }, 60_000);
});
