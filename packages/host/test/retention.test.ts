// A broker with a retention rule prunes old audit events itself; without one it keeps them.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { startBroker, tailAudit } from '../src/api';
import { initInstance, openStore } from '../src/instance';
import { WORKSPACE_YAML } from './helpers';

let box: ReturnType<typeof tempDir>;
afterEach(() => box?.cleanup());

async function instanceWithOneEvent(): Promise<string> {
  box = tempDir('host-retention-');
  const file = join(box.path, 'workspace.yaml');
  writeFileSync(file, WORKSPACE_YAML);
  const instance = join(box.path, 'instance');
  await initInstance(instance, file);
  const store = await openStore(instance);
  try {
    await store.appendAudit({
      run: 'r',
      actor: 'agent:reader',
      job: null,
      command: 'text.echo',
      action: 'run',
      phase: 'run',
      outcome: 'executed',
      code: 'ok',
      reason: null,
      payload: {},
    });
  } finally {
    await store.close();
  }
  return instance;
}

async function brokerFor(instance: string, retentionMs?: number): Promise<void> {
  const broker = await startBroker({
    instanceDir: instance,
    socketPath: join(box.path, 'b.sock'),
    scope: { run: 'r', agent: 'reader' },
    ...(retentionMs === undefined ? {} : { retentionMs }),
  });
  // The start began a prune, and closing waits for it to end.
  await broker.close();
}

describe('the broker retention rule', () => {
  it('prunes audit events older than the rule when it starts', async () => {
    const instance = await instanceWithOneEvent();
    await brokerFor(instance, 30 * 86_400_000);
    expect((await tailAudit(instance, 10)).map((e) => e.command)).toEqual(['text.echo']);
    // Age is what the rule reads: the event is made older than 1 ms by letting time pass.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await brokerFor(instance, 1);
    expect(await tailAudit(instance, 10)).toEqual([]);
  });

  it('keeps every audit event without a rule', async () => {
    const instance = await instanceWithOneEvent();
    // Age is what a rule would read: the event is old enough for any rule to take it.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await brokerFor(instance);
    expect((await tailAudit(instance, 10)).map((e) => e.command)).toEqual(['text.echo']);
  });

  it('refuses a rule that is not a whole number of ms above 0, starting nothing', async () => {
    const instance = await instanceWithOneEvent();
    await expect(brokerFor(instance, 0)).rejects.toMatchObject({
      code: 'retention_invalid',
      message: expect.stringContaining('retentionMs must be a whole number of ms above 0, found 0'),
    });
    expect((await tailAudit(instance, 10)).map((e) => e.command)).toEqual(['text.echo']);
  });
});
