// An instance records what it serves; checkBroker runs exactly the checks startBroker runs.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { checkBroker, startBroker } from '../src/api';
import { initInstance, readInstance } from '../src/instance';
import { WORKSPACE_YAML } from './helpers';

let box: ReturnType<typeof tempDir>;
afterEach(() => box?.cleanup());

function workspace(): { instance: string; workspace: string } {
  box = tempDir('host-instance-');
  const file = join(box.path, 'workspace.yaml');
  writeFileSync(file, WORKSPACE_YAML);
  return { instance: join(box.path, 'instance'), workspace: file };
}

describe('what an instance serves', () => {
  it('records the agent it was created with in instance.json', async () => {
    const w = workspace();
    await initInstance(w.instance, w.workspace, { serves: { agent: 'reader' } });
    expect(JSON.parse(readFileSync(join(w.instance, 'instance.json'), 'utf8')).agent).toBe('reader');
    expect(readInstance(w.instance).serves).toEqual({ agent: 'reader' });
  });

  it('is created in a directory holding only credentials.json, which it keeps with its mode', async () => {
    const w = workspace();
    mkdirSync(w.instance, { mode: 0o700 });
    writeFileSync(join(w.instance, 'credentials.json'), '{"token":"s3cret"}\n', { mode: 0o600 });
    await initInstance(w.instance, w.workspace, { serves: { agent: 'reader' } });
    expect(readInstance(w.instance).serves).toEqual({ agent: 'reader' });
    expect(readFileSync(join(w.instance, 'credentials.json'), 'utf8')).toBe('{"token":"s3cret"}\n');
    expect(statSync(join(w.instance, 'credentials.json')).mode & 0o777).toBe(0o600);
  });

  it('refuses a directory holding anything else, leaving it as it was', async () => {
    const w = workspace();
    mkdirSync(w.instance);
    writeFileSync(join(w.instance, 'credentials.json'), '{}');
    writeFileSync(join(w.instance, 'notes.txt'), 'mine');
    await expect(initInstance(w.instance, w.workspace)).rejects.toThrowError('exists and is not empty');
    expect(readdirSync(w.instance).sort()).toEqual(['credentials.json', 'notes.txt']);
  });

  it('refuses an agent its workspace does not declare, creating nothing', async () => {
    const w = workspace();
    await expect(initInstance(w.instance, w.workspace, { serves: { agent: 'nobody' } })).rejects.toThrowError(
      'scope: agent "nobody" is not declared in the workspace; declared agents: reader, editor',
    );
    expect(existsSync(w.instance)).toBe(false);
  });
});

describe('checkBroker', () => {
  it('reports every step ok on a sound instance', async () => {
    const w = workspace();
    await initInstance(w.instance, w.workspace);
    const checks = await checkBroker({ instanceDir: w.instance, scope: { run: 'r', agent: 'reader' } });
    expect(checks.map((c) => `${c.name} ${c.ok}`)).toEqual([
      'instance true',
      'store true',
      'credentials true',
      'workspace true',
      'scope true',
    ]);
  });

  it('fails at the step and with the message a broker start fails with', async () => {
    const w = workspace();
    await initInstance(w.instance, w.workspace);
    const file = join(w.instance, 'credentials.json');
    writeFileSync(file, '{"TOKEN":"s3cret"}');
    chmodSync(file, 0o644);
    const scope = { run: 'r', agent: 'reader' };
    const checks = await checkBroker({ instanceDir: w.instance, scope });
    const failed = checks.at(-1);
    expect(failed?.name).toBe('credentials');
    expect(failed?.ok).toBe(false);
    const started = startBroker({ instanceDir: w.instance, socketPath: join(box.path, 'b.sock'), scope });
    await expect(started).rejects.toThrowError(failed?.detail);
    expect(failed?.detail).not.toContain('s3cret');
  });
});

describe('the socket path option', () => {
  it('takes queuePath, the old name of socketPath, with one deprecation warning, and serves there', async () => {
    const w = workspace();
    await initInstance(w.instance, w.workspace);
    const warnings: Error[] = [];
    const listen = (warning: Error) => warnings.push(warning);
    process.on('warning', listen);
    const socketPath = join(box.path, 'run', 'old.sock');
    try {
      const broker = await startBroker({
        instanceDir: w.instance,
        queuePath: socketPath,
        scope: { run: 'r', agent: 'reader' },
      });
      try {
        expect(broker.socketPath).toBe(socketPath);
        expect(existsSync(socketPath)).toBe(true);
        // The old property name still reads the same value (and warns once).
        expect(broker.queuePath).toBe(socketPath);
        expect(broker.queuePath).toBe(socketPath);
      } finally {
        await broker.close();
      }
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((w) => [w.name, (w as { code?: string }).code, w.message])).toEqual([
        [
          'DeprecationWarning',
          'HARNESS_DEP_QUEUE_PATH',
          'startBroker({ queuePath }) is deprecated: rename it to startBroker({ socketPath }) (same value).',
        ],
        [
          'DeprecationWarning',
          'HARNESS_DEP_QUEUE_PATH',
          'RunningBroker.queuePath is deprecated: rename it to socketPath (same value).',
        ],
      ]);
    } finally {
      process.off('warning', listen);
    }
  });

  it('refuses both names at once, and no name, starting nothing', async () => {
    const w = workspace();
    await initInstance(w.instance, w.workspace);
    const scope = { run: 'r', agent: 'reader' };
    const a = join(box.path, 'a.sock');
    const both = { instanceDir: w.instance, socketPath: a, queuePath: join(box.path, 'b.sock'), scope };
    await expect(startBroker(both as unknown as Parameters<typeof startBroker>[0])).rejects.toMatchObject({
      code: 'socket_invalid',
      message: 'give socketPath only: queuePath is its old name, and both are set',
    });
    const none = { instanceDir: w.instance, scope };
    await expect(startBroker(none as unknown as Parameters<typeof startBroker>[0])).rejects.toMatchObject({
      code: 'socket_invalid',
      message:
        "startBroker needs socketPath, where the broker's Unix socket goes (e.g. /run/loom/agent.sock); found none",
    });
    expect(existsSync(a)).toBe(false);
  });
});
