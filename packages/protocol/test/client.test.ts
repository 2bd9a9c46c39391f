// The socket client against a fake broker: a real Unix socket whose other end this test scripts, so
// it can misbehave in ways the reference broker never does (another version, dropped connections,
// oversized lines). The reference broker's side is tested in @harness/host.
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
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
    const b = await fakeBroker(greet('loom-broker/2'));
    const r = await brokerRun(b.path, { command: 'a.b', args: {} });
    expect(r).toEqual({
      ok: false,
      failure: {
        kind: 'incompatible',
        message:
          'the broker speaks loom-broker/2; this side speaks loom-broker/1. Use a client and a broker of the same protocol version.',
      },
    });
    expect(b.received.map((x) => x.op)).toEqual(['hello']);
  });

  it('reads a broker that refuses our version as incompatible, with its message', async () => {
    const b = await fakeBroker((req, s) => {
      s.write(
        `${JSON.stringify({ protocol: 'loom-broker/2', id: req.id, ok: false, error: { code: 'unsupported_protocol', message: 'this broker speaks loom-broker/2; the request names loom-broker/1' } })}\n`,
      );
    });
    const r = await brokerHello(b.path);
    expect(r.ok ? undefined : r.failure.kind).toBe('incompatible');
    expect(r.ok ? '' : r.failure.message).toContain('loom-broker/2');
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
    await waitFor(() => held.length === 2);
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
    await waitFor(() => held.length === 3);
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

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}
