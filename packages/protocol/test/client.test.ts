// The socket client against a fake broker: a real Unix socket whose other end this test scripts, so
// it can misbehave in ways the reference broker never does (another version, dropped connections,
// oversized lines). The reference broker's side is tested in @harness/host.
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { tempDir, until } from '@harness/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { brokerHello, brokerRun, createBrokerClient } from '../src/client';
import { BROKER_PROTOCOL, MAX_ANSWER_LINE_BYTES } from '../src/index';

interface FakeBroker {
  path: string;
  received: Record<string, unknown>[];
  sockets: Socket[];
  close(): Promise<void>;
}

type Script = (request: Record<string, unknown>, socket: Socket) => void;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const answer = (socket: Socket, id: unknown, result: unknown, protocol = BROKER_PROTOCOL): void => {
  socket.write(`${JSON.stringify({ protocol, id, ok: true, result })}\n`);
};
const greet =
  (protocol = BROKER_PROTOCOL): Script =>
  (req, s) => {
    if (req.op === 'hello') answer(s, req.id, { protocol, run: 'run-1', agent: 'agent-1' }, protocol);
  };

async function fakeBroker(script: Script): Promise<FakeBroker> {
  const dir = tempDir('protocol-client-');
  const path = join(dir.path, 'broker.sock');
  const received: Record<string, unknown>[] = [];
  const sockets: Socket[] = [];
  const server: Server = createServer((socket) => {
    sockets.push(socket);
    socket.setEncoding('utf8');
    let buffer = '';
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const req = JSON.parse(buffer.slice(0, nl)) as Record<string, unknown>;
        buffer = buffer.slice(nl + 1);
        received.push(req);
        script(req, socket);
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const broker = {
    path,
    received,
    sockets,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      dir.cleanup();
    },
  };
  cleanups.push(broker.close);
  return broker;
}

const echoRun: Script = (req, s) => {
  greet()(req, s);
  if (req.op === 'run')
    answer(s, req.id, {
      ok: true,
      id: req.command,
      code: 'ok',
      mayHaveLanded: true,
      completed: [],
      body: req.args,
    });
};

describe('the socket client', () => {
  it('greets the broker once per connection and multiplexes requests on it', async () => {
    const b = await fakeBroker(echoRun);
    const client = createBrokerClient({ socketPath: b.path });
    cleanups.push(() => client.close());
    const [one, two] = await Promise.all([
      client.run({ command: 'a.b', args: { n: 1 } }),
      client.run({ command: 'a.b', args: { n: 2 } }),
    ]);
    expect(one).toMatchObject({ ok: true, value: { body: { n: 1 } } });
    expect(two).toMatchObject({ ok: true, value: { body: { n: 2 } } });
    expect(b.received.map((r) => r.op)).toEqual(['hello', 'run', 'run']);
    expect(b.sockets).toHaveLength(1);
    expect(b.received.every((r) => r.protocol === BROKER_PROTOCOL)).toBe(true);
  });

  it('refuses a broker of another protocol version by name and sends it nothing else', async () => {
    const b = await fakeBroker(greet('loom-broker/1'));
    const r = await brokerRun(b.path, { command: 'a.b', args: {} });
    expect(r).toEqual({
      ok: false,
      failure: {
        kind: 'incompatible',
        message:
          'the broker speaks loom-broker/1; this side speaks loom-broker/2. Use a client and a broker of the same protocol version.',
      },
    });
    expect(b.received.map((x) => x.op)).toEqual(['hello']);
  });

  it('reads a broker that refuses our version as incompatible, with its message', async () => {
    const b = await fakeBroker((req, s) => {
      s.write(
        `${JSON.stringify({ protocol: 'loom-broker/1', id: req.id, ok: false, error: { code: 'unsupported_protocol', message: 'this broker speaks loom-broker/1; the request names loom-broker/2' } })}\n`,
      );
    });
    const r = await brokerHello(b.path);
    expect(r.ok ? undefined : r.failure.kind).toBe('incompatible');
    expect(r.ok ? '' : r.failure.message).toContain('loom-broker/1');
  });

  it('reports a missing broker as unreachable, naming the path', async () => {
    const dir = tempDir('protocol-client-');
    cleanups.push(dir.cleanup);
    const path = join(dir.path, 'nobody.sock');
    const r = await brokerHello(path);
    expect(r.ok ? undefined : r.failure.kind).toBe('unreachable');
    expect(r.ok ? '' : r.failure.message).toContain(path);
  });

  it('refuses a request beyond its pending bound as busy before sending it', async () => {
    const held: { id: unknown; socket: Socket }[] = [];
    const b = await fakeBroker((req, s) => {
      greet()(req, s);
      if (req.op === 'run') held.push({ id: req.id, socket: s });
    });
    const client = createBrokerClient({ socketPath: b.path, maxPending: 2 });
    cleanups.push(() => client.close());
    const first = client.run({ command: 'a.b', args: { n: 1 } });
    const second = client.run({ command: 'a.b', args: { n: 2 } });
    const third = await client.run({ command: 'a.b', args: { n: 3 } });
    expect(third).toMatchObject({ ok: false, failure: { kind: 'busy' } });
    expect(third.ok ? '' : third.failure.message).toContain('nothing was sent');
    await until(() => held.length === 2, 'the broker to hold both sent runs');
    for (const h of held)
      answer(h.socket, h.id, {
        ok: true,
        id: 'a.b',
        code: 'ok',
        mayHaveLanded: true,
        completed: [],
        body: null,
      });
    expect((await first).ok).toBe(true);
    expect((await second).ok).toBe(true);
    expect(b.received.filter((r) => r.op === 'run').map((r) => (r.args as { n: number }).n)).toEqual([1, 2]);
    // The bound is on requests open at once: once answered, there is room again.
    const held2 = client.run({ command: 'a.b', args: { n: 4 } });
    await until(() => held.length === 3, 'the broker to hold the run sent once there was room');
    const last = held[2];
    if (last)
      answer(last.socket, last.id, {
        ok: true,
        id: 'a.b',
        code: 'ok',
        mayHaveLanded: true,
        completed: [],
        body: 4,
      });
    expect(await held2).toMatchObject({ ok: true, value: { body: 4 } });
  });

  it('reports a sent request as lost when the connection drops, and reconnects for the next', async () => {
    let drop = true;
    const b = await fakeBroker((req, s) => {
      if (req.op === 'run' && drop) {
        drop = false;
        s.destroy();
        return;
      }
      echoRun(req, s);
    });
    const client = createBrokerClient({ socketPath: b.path });
    cleanups.push(() => client.close());
    const lost = await client.run({ command: 'a.b', args: {} });
    expect(lost).toMatchObject({ ok: false, failure: { kind: 'lost' } });
    const next = await client.run({ command: 'a.b', args: { again: true } });
    expect(next).toMatchObject({ ok: true, value: { body: { again: true } } });
    expect(b.sockets).toHaveLength(2);
  });

  it('reads an unanswered request as lost after its timeout', async () => {
    const b = await fakeBroker(greet());
    // One budget covers connecting, the greeting and the answer: long enough that the greeting
    // arrives within it on a loaded machine, so what runs out is the wait for the answer.
    const r = await brokerRun(b.path, { command: 'a.b', args: {} }, { timeoutMs: 3_000 });
    expect(r).toEqual({
      ok: false,
      failure: { kind: 'lost', message: 'no answer from the broker within 3000 ms' },
    });
  });

  it('drops a connection whose answer line passes the answer cap, losing what was sent', async () => {
    const b = await fakeBroker((req, s) => {
      greet()(req, s);
      if (req.op === 'run')
        s.write(
          `{"protocol":"${BROKER_PROTOCOL}","id":"${req.id}","ok":true,"result":"${'x'.repeat(MAX_ANSWER_LINE_BYTES)}`,
        );
    });
    const r = await brokerRun(b.path, { command: 'a.b', args: {} });
    expect(r.ok ? undefined : r.failure.kind).toBe('lost');
    expect(r.ok ? '' : r.failure.message).toContain(`over ${MAX_ANSWER_LINE_BYTES} bytes`);
    // Writing and refusing a 32 MiB line is slow on a loaded machine; the bound is not what is tested.
  }, 90_000);
});

describe('progress and cancellation (docs/protocol.md, "Progress and cancellation")', () => {
  const done = { ok: true, id: 'a.b', code: 'ok', mayHaveLanded: false, completed: [], body: 'done' };
  const progressLine = (socket: Socket, id: unknown, progress: unknown): void => {
    socket.write(`${JSON.stringify({ protocol: BROKER_PROTOCOL, id, progress })}\n`);
  };

  it('a run given onProgress asks for progress and is told each progress line; only the answer settles it', async () => {
    const b = await fakeBroker((req, s) => {
      greet()(req, s);
      if (req.op !== 'run') return;
      progressLine(s, req.id, { elapsedMs: 2000, outputBytes: 10 });
      progressLine(s, req.id, { elapsedMs: 4000, outputBytes: 25 });
      answer(s, req.id, done);
    });
    const seen: unknown[] = [];
    const r = await brokerRun(b.path, { command: 'a.b', args: {} }, { onProgress: (p) => seen.push(p) });
    expect(r).toEqual({ ok: true, value: done });
    expect(seen).toEqual([
      { elapsedMs: 2000, outputBytes: 10 },
      { elapsedMs: 4000, outputBytes: 25 },
    ]);
    expect(b.received.find((q) => q.op === 'run')?.progress).toBe(true);
  });

  it('a run without onProgress does not ask; a stray or malformed progress line never settles a run', async () => {
    const b = await fakeBroker((req, s) => {
      greet()(req, s);
      if (req.op !== 'run') return;
      progressLine(s, req.id, { elapsedMs: 'soon', outputBytes: -1 });
      progressLine(s, req.id, { elapsedMs: 2000, outputBytes: 1 });
      answer(s, req.id, done);
    });
    const r = await brokerRun(b.path, { command: 'a.b', args: {} });
    expect(r).toEqual({ ok: true, value: done });
    expect(b.received.find((q) => q.op === 'run')).not.toHaveProperty('progress');
    const thrown = await brokerRun(
      b.path,
      { command: 'a.b', args: {} },
      {
        onProgress: () => {
          throw new Error('observer failed');
        },
      },
    );
    expect(thrown).toEqual({ ok: true, value: done });
  });

  it('a signal aborted after sending sends cancel naming the run on its connection, and the run still settles with its answer', async () => {
    const held: { id: unknown; socket: Socket }[] = [];
    const b = await fakeBroker((req, s) => {
      greet()(req, s);
      if (req.op === 'run') held.push({ id: req.id, socket: s });
      if (req.op === 'cancel') {
        answer(s, req.id, { cancelled: true });
        const target = held.find((h) => h.id === req.target);
        if (target)
          answer(target.socket, target.id, { ...done, ok: false, code: 'failed', reason: 'cancelled' });
      }
    });
    // A bound of one: the cancel is not a request the caller waits on, so it is sent at the bound.
    const client = createBrokerClient({ socketPath: b.path, maxPending: 1 });
    cleanups.push(() => client.close());
    const ac = new AbortController();
    const pending = client.run({ command: 'a.b', args: {} }, { signal: ac.signal });
    await until(() => held.length === 1, 'the broker to hold the run');
    ac.abort();
    expect(await pending).toMatchObject({
      ok: true,
      value: { ok: false, code: 'failed', reason: 'cancelled' },
    });
    expect(b.received.map((r) => r.op)).toEqual(['hello', 'run', 'cancel']);
    expect(b.received[2]).toMatchObject({ protocol: BROKER_PROTOCOL, target: held[0]?.id });
    expect(b.sockets).toHaveLength(1);
  });

  it('a signal aborted before the request is sent sends nothing: cancelled [LA-111]', async () => {
    const b = await fakeBroker(echoRun);
    const ac = new AbortController();
    ac.abort();
    const r = await brokerRun(b.path, { command: 'a.b', args: {} }, { signal: ac.signal });
    expect(r).toMatchObject({ ok: false, failure: { kind: 'cancelled' } });
    expect(b.received).toEqual([]);
  });

  it('a call’s own timeoutMs replaces the client’s', async () => {
    const b = await fakeBroker((req, s) => {
      greet()(req, s);
      // The delay is what is tested: an answer later than the client's own timeout.
      if (req.op === 'run') setTimeout(() => answer(s, req.id, done), 300);
    });
    const client = createBrokerClient({ socketPath: b.path, timeoutMs: 100 });
    cleanups.push(() => client.close());
    // The client's 100 ms alone would read the answer that comes at 300 ms as lost.
    expect(await client.run({ command: 'a.b', args: {} }, { timeoutMs: 10_000 })).toEqual({
      ok: true,
      value: done,
    });
  });
});
