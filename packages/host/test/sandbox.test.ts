// The audit log of a real broker says, for each run, whether and how the command was confined.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { detectSandbox } from '@harness/exec';
import { brokerRun } from '@harness/protocol/client';
import { needs, sandboxMechanism } from '@harness/test-utils';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { decideApproval, type RunningBroker, startBroker, tailAudit } from '../src/api';
import { freshInstance } from './helpers';

const sandboxed = needs(sandboxMechanism(detectSandbox()));

let env: Awaited<ReturnType<typeof freshInstance>>;
let broker: RunningBroker | undefined;
beforeEach(async () => {
  env = await freshInstance();
});
afterEach(async () => {
  await broker?.close();
  env.cleanup();
});

sandboxed.describe('confinement in the audit log', () => {
  it('records the sandbox of a read command and why a write command ran unconfined [SEC-14]', async () => {
    broker = await startBroker({
      instanceDir: env.instance,
      socketPath: join(env.root, 'run', 'q.sock'),
      scope: { run: 'run-1', agent: 'editor' } as never,
    });
    const read = await brokerRun(broker.socketPath, { command: 'text.echo', args: { message: 'hi' } });
    expect(read.ok).toBe(true);
    const file = join(env.root, 'touched');
    const held = await brokerRun(broker.socketPath, { command: 'text.touch', args: { file } });
    if (!held.ok) throw new Error('the broker did not answer');
    // A write under the cautious tier waits for a person; approve it, then the same call runs.
    decideApproval(
      env.instance,
      (held.value.body as { approval: { id: string } }).approval.id,
      'approved',
      'person:test',
    );
    const write = await brokerRun(broker.socketPath, { command: 'text.touch', args: { file } });
    expect(write.ok && write.value.ok).toBe(true);
    expect(existsSync(file)).toBe(true);
    const runs = (await tailAudit(env.instance, 10)).filter((e) => e.phase === 'run');
    const confinement = (command: string) => {
      const payload = runs.findLast((e) => e.command === command)?.payload as
        | { run?: { confinement?: unknown } }
        | undefined;
      return payload?.run?.confinement;
    };
    expect(confinement('text.echo')).toMatchObject({
      confined: true,
      mechanism: 'bwrap',
      read: 'all',
      write: [],
      network: 'none',
      pidNamespace: true,
    });
    expect(confinement('text.touch')).toEqual({
      confined: false,
      reason: 'a write command without a sandbox block',
    });
  });
});
