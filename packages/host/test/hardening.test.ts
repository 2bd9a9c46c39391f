// Robustness of the host at its edges: a broker client that never reads its answers, and a
// credentials file that others may read. Real sockets, real files, real store.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { brokerHello, brokerRun } from '@harness/protocol/client';
import type { Store } from '@harness/store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startBroker } from '../src/api';
import { type BrokerServer, serveBroker } from '../src/broker';
import { HostError } from '../src/errors';
import { initInstance } from '../src/instance';
import { freshInstance, hostFor, rawLines } from './helpers';

let env: Awaited<ReturnType<typeof freshInstance>>;
const closers: (() => unknown)[] = [];

beforeEach(async () => {
  env = await freshInstance();
});
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  env.cleanup();
});

const listLine = (i: number): string =>
  `${JSON.stringify({ protocol: 'loom-broker/2', id: `l${i}`, op: 'list' })}\n`;

const listings = async (store: Store): Promise<number> =>
  (await store.tailAudit(100_000)).filter((e) => e.phase === 'list' && e.outcome === 'listed').length;

describe('broker backpressure: a client that never reads its answers', () => {
  it('is paused at the high-water mark, its pending output stays bounded, others are served, and nothing is lost', async () => {
    const { host, store } = await hostFor(env.instance, { run: 'run-1', agent: 'reader' } as never);
    closers.push(() => store.close());
    const highWater = 64 * 1024;
    const maxInflight = 4;
    let maxPending = 0;
    let onPaused: () => void = () => {};
    const paused = new Promise<void>((resolve) => {
      onPaused = resolve;
    });
    const server: BrokerServer = await serveBroker(host, join(env.root, 'run', 'bp.sock'), {
      outputHighWaterBytes: highWater,
      maxInflightPerConnection: maxInflight,
      onOutput: (info) => {
        maxPending = Math.max(maxPending, info.pendingBytes);
        if (info.paused) onPaused();
      },
    });
    closers.push(() => server.close());

    // One listing answer's size, measured on the wire.
    const one = await brokerRunRaw(server.socketPath, listLine(0));
    const answerBytes = Buffer.byteLength(one);
    const before = await listings(store);

    // Far more answers than the kernel's socket buffers and the high-water mark hold together.
    const total = Math.ceil((16 * 1024 * 1024) / answerBytes);
    const greedy = connect(server.socketPath);
    closers.push(() => greedy.destroy());
    greedy.on('error', () => {});
    greedy.pause();
    greedy.write(Array.from({ length: total }, (_, i) => listLine(i)).join(''));
    await paused;

    // Another connection is answered while the greedy one is paused, and it runs commands.
    expect((await brokerHello(server.socketPath)).ok).toBe(true);
    const echoed = await brokerRun(server.socketPath, { command: 'text.echo', args: { message: 'hi' } });
    expect(echoed.ok && echoed.value.code).toBe('ok');

    // What the broker holds for the greedy connection never passed the high-water mark by more
    // than the answers that were already running when it was reached.
    expect(maxPending).toBeLessThanOrEqual(highWater + maxInflight * answerBytes);
    const started = (await listings(store)) - before;
    expect(started).toBeLessThan(total);

    // Once the client reads, every request it sent is answered, in full.
    const answered = await new Promise<number>((resolve) => {
      let n = 0;
      let buf = '';
      greedy.setEncoding('utf8');
      greedy.on('data', (c: string) => {
        buf += c;
        let nl = buf.indexOf('\n');
        while (nl >= 0) {
          n++;
          buf = buf.slice(nl + 1);
          nl = buf.indexOf('\n');
        }
        if (n === total) resolve(n);
      });
      greedy.resume();
    });
    expect(answered).toBe(total);
    expect((await listings(store)) - before).toBe(total);
    expect(maxPending).toBeLessThanOrEqual(highWater + maxInflight * answerBytes);
  });
});

/** Sends one line on a fresh connection and returns the first answer line as text. */
function brokerRunRaw(path: string, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(path);
    let buf = '';
    s.setEncoding('utf8');
    s.on('connect', () => s.write(line));
    s.on('data', (c: string) => {
      buf += c;
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        s.destroy();
        resolve(buf.slice(0, nl + 1));
      }
    });
    s.on('error', reject);
  });
}

describe('credentials.json must be private to its owner', () => {
  const SECRET = 'tok-SUPERSECRET-2';
  const write = (mode: number): string => {
    const file = join(env.instance, 'credentials.json');
    writeFileSync(file, JSON.stringify({ api_token: SECRET }), { mode });
    chmodSync(file, mode); // the umask may have narrowed the mode given to writeFileSync
    return file;
  };
  const startEditor = () =>
    startBroker({
      instanceDir: env.instance,
      socketPath: join(env.root, 'run', 'c.sock'),
      scope: { run: 'run-1', agent: 'editor' } as never,
    });

  it('mode 0600 is loaded and the credential reaches the command', async () => {
    write(0o600);
    const b = await startEditor();
    closers.push(() => b.close());
    const r = await brokerRun(b.socketPath, { command: 'creds.show', args: {} });
    expect(r.ok && r.value.code).toBe('ok');
  });

  it.each([0o644, 0o640, 0o604, 0o660, 0o602])(
    'mode %o is refused with the file, its mode and the fix, never the secret',
    async (mode) => {
      const file = write(mode);
      const error = await startEditor().then(
        (b) => {
          closers.push(() => b.close());
          throw new Error('the broker started');
        },
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(HostError);
      expect((error as HostError).code).toBe('instance_invalid');
      const message = (error as HostError).message;
      expect(message).toContain(file);
      expect(message).toContain(`0${mode.toString(8)}`);
      expect(message).toContain(`chmod 600 ${file}`);
      expect(message).not.toContain(SECRET);
      expect(JSON.stringify(error)).not.toContain(SECRET);
    },
  );
});

describe('broker fairness: calls stuck behind a descendant that escaped its group', () => {
  // sandbox_mode off: a sandbox's pid namespace would end the escaped process with the run.
  const STUCK_YAML = `version: 1
sandbox_mode: off
command_packs:
  - id: slow
    timeout: 2s
    commands:
      - id: escape
        argv: [sh, -c, 'setsid sleep 61.8034 & sleep 30']
        effects: read
      - id: quick
        argv: [echo, quick]
        effects: read
agents:
  - id: reader
    grants: [pack:slow]
`;

  it('answers every stuck call at its bound and an innocent call on the same connection within the queue wait, not after them [SEC-5]', async () => {
    const workspace = join(env.root, 'stuck.yaml');
    writeFileSync(workspace, STUCK_YAML);
    const instance = join(env.root, 'stuck-instance');
    await initInstance(instance, workspace);
    const { host, store } = await hostFor(instance, { run: 'run-1', agent: 'reader' } as never);
    closers.push(() => store.close());
    closers.push(() => {
      // The escaped sleeps are out of every group kill's reach: end them by pid.
      const ps = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
      for (const line of ps.split('\n').filter((l) => l.endsWith('sleep 61.8034'))) {
        process.kill(Number(line.trim().split(' ')[0]), 'SIGKILL');
      }
    });
    const server = await serveBroker(host, join(env.root, 'run', 'fair.sock'), {
      maxInflightPerConnection: 2,
      queueWaitMs: 500,
    });
    closers.push(() => server.close());
    const run = (id: string, command: string): string =>
      `${JSON.stringify({ protocol: 'loom-broker/2', id, op: 'run', command, args: {} })}\n`;

    const started = Date.now();
    const at: Record<string, number> = {};
    const answers = await rawLines(
      server.socketPath,
      run('stuck-1', 'slow.escape') + run('stuck-2', 'slow.escape') + run('innocent', 'slow.quick'),
      3,
      (socket) =>
        socket.on('data', (c: Buffer | string) => {
          for (const m of String(c).matchAll(/"id":"([a-z0-9-]+)"/g))
            at[m[1] as string] ??= Date.now() - started;
        }),
    );
    const byId = Object.fromEntries(answers.map((a) => [a.id, a]));
    // The innocent call is told at once that nothing ran, instead of waiting for the stuck ones.
    expect(byId.innocent).toMatchObject({ ok: false, error: { code: 'busy' } });
    expect(at.innocent).toBeLessThan(500 + 1_000);
    // The stuck calls end at their timeout plus the kill grace, reporting the escape.
    for (const id of ['stuck-1', 'stuck-2']) {
      expect(byId[id]).toMatchObject({ ok: true, result: { ok: false, code: 'failed' } });
      expect(JSON.stringify(byId[id])).toContain('escaped');
      expect(at[id]).toBeLessThan(2_000 + 2_000 + 1_500);
    }
  });
});

describe('the broker socket is bound and reached only in a directory private to this user [SEC-1]', () => {
  it('refuses to bind in a directory others can write, creating nothing there', async () => {
    const { host, store } = await hostFor(env.instance, { run: 'run-1', agent: 'reader' } as never);
    closers.push(() => store.close());
    const open = join(env.root, 'open');
    mkdirSync(open, { mode: 0o700 });
    chmodSync(open, 0o777);
    const error = await serveBroker(host, join(open, 'broker.sock')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostError);
    expect((error as HostError).code).toBe('queue_unsafe');
    expect((error as HostError).message).toContain(`${open} is writable by every user (mode 777)`);
    expect(readdirSync(open)).toEqual([]);
  });

  it('refuses to bind through a symbolic link', async () => {
    const { host, store } = await hostFor(env.instance, { run: 'run-1', agent: 'reader' } as never);
    closers.push(() => store.close());
    const real = join(env.root, 'real');
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, join(env.root, 'link'));
    const error = await serveBroker(host, join(env.root, 'link', 'broker.sock')).catch((e: unknown) => e);
    expect((error as HostError).code).toBe('queue_unsafe');
    expect((error as HostError).message).toContain('is a symbolic link');
  });

  it('a client refuses to connect once the directory became writable by others, sending nothing', async () => {
    const { host, store } = await hostFor(env.instance, { run: 'run-1', agent: 'reader' } as never);
    closers.push(() => store.close());
    const dir = join(env.root, 'private');
    const server = await serveBroker(host, join(dir, 'broker.sock'));
    closers.push(() => server.close());
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect((await brokerHello(server.socketPath)).ok).toBe(true);
    chmodSync(dir, 0o770);
    const refused = await brokerHello(server.socketPath);
    expect(refused).toEqual({
      ok: false,
      failure: {
        kind: 'unreachable',
        message: `refusing to connect to ${server.socketPath}: ${dir} is writable by its group (mode 770)`,
      },
    });
    chmodSync(dir, 0o700);
  });
});
