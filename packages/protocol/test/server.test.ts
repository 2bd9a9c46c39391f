// The line server on a real Unix socket: framing, parsing and scheduling are its; a handler only says
// how a request is answered. The reference broker's use of it is tested in @harness/host.
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { tempDir, until } from '@harness/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import type { BrokerRequest } from '../src/index';
import { type LineConnection, type LineHandler, type ServeLinesOptions, serveLines } from '../src/server';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

interface Peer {
  send(text: string): void;
  /** The next `n` lines the server writes, as text. */
  lines(n: number): Promise<string[]>;
}

async function served(handler: LineHandler, options: ServeLinesOptions<Socket> = {}): Promise<Peer> {
  const dir = tempDir('protocol-serve-');
  const path = join(dir.path, 'lines.sock');
  const lines = serveLines<Socket>(handler, options);
  const server: Server = createServer((socket) => lines.serve(socket));
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const socket = connect(path);
  socket.setEncoding('utf8');
  let buffer = '';
  const waiting: (() => void)[] = [];
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    for (const w of waiting.splice(0)) w();
  });
  cleanups.push(async () => {
    socket.destroy();
    await lines.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    dir.cleanup();
  });
  return {
    send: (text) => socket.write(text),
    async lines(n) {
      while (buffer.split('\n').length - 1 < n) await new Promise<void>((resolve) => waiting.push(resolve));
      const taken = buffer.split('\n').slice(0, n);
      buffer = buffer.split('\n').slice(n).join('\n');
      return taken;
    },
  };
}

const hello = (id: string): string => `{"protocol":"loom-broker/2","id":"${id}","op":"hello"}\n`;

describe('serveLines', () => {
  it('puts the envelope around a reply: protocol, then id, then the reply', async () => {
    const peer = await served(() => ({
      answer: async () => ({ ok: true, result: { protocol: 'loom-broker/2', run: 'run-1', agent: 'a' } }),
    }));
    peer.send(hello('h1'));
    expect(await peer.lines(1)).toEqual([
      '{"protocol":"loom-broker/2","id":"h1","ok":true,"result":{"protocol":"loom-broker/2","run":"run-1","agent":"a"}}',
    ]);
  });

  it('answers a line that is not a request with its envelope error; the handler never sees it', async () => {
    const seen: BrokerRequest[] = [];
    const peer = await served(() => ({
      answer: async (request) => {
        seen.push(request);
        return { ok: true, result: { cancelled: false } };
      },
    }));
    peer.send('not json\n{"protocol":"loom-broker/2","id":"b","op":"run","command":"a.b","args":7}\n');
    expect((await peer.lines(2)).map((l) => JSON.parse(l))).toEqual([
      {
        protocol: 'loom-broker/2',
        id: '',
        ok: false,
        error: { code: 'bad_request', message: 'the request line is not JSON' },
      },
      {
        protocol: 'loom-broker/2',
        id: 'b',
        ok: false,
        error: {
          code: 'bad_request',
          message: 'the request does not match loom-broker/2: /args must be an object (found 7)',
        },
      },
    ]);
    expect(seen).toEqual([]);
  });

  it('answers a cancel at once, while the only slot is held and a request waits for it', async () => {
    let release = (): void => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const peer = await served(
      () => ({
        answer: async (request) => {
          if (request.op === 'cancel') return { ok: true, result: { cancelled: true } };
          await held;
          return { ok: true, result: { cancelled: false } };
        },
      }),
      { maxInflightPerConnection: 1, queueWaitMs: 60_000 },
    );
    peer.send(
      `${hello('slow')}${hello('queued')}{"protocol":"loom-broker/2","id":"c","op":"cancel","target":"slow"}\n`,
    );
    expect(await peer.lines(1)).toEqual([
      '{"protocol":"loom-broker/2","id":"c","ok":true,"result":{"cancelled":true}}',
    ]);
    release();
    expect((await peer.lines(2)).map((l) => (JSON.parse(l) as { id: string }).id)).toEqual([
      'slow',
      'queued',
    ]);
  });

  it('tells the handler which requests wait for a slot, and which will never reach it', async () => {
    const dropped: string[] = [];
    let connection: LineConnection | undefined;
    let release = (): void => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const peer = await served(
      (c) => {
        connection = c;
        return {
          answer: async () => {
            await held;
            return { ok: true, result: { cancelled: false } };
          },
          dropped: (id) => dropped.push(id),
        };
      },
      { maxInflightPerConnection: 1, queueWaitMs: 1_000 },
    );
    peer.send(`${hello('held')}${hello('waits')}`);
    await until(() => connection?.queued('waits') === true, "'waits' queued");
    expect(connection?.queued('held')).toBe(false);
    const [busy] = await peer.lines(1);
    expect(JSON.parse(busy as string)).toMatchObject({ id: 'waits', ok: false, error: { code: 'busy' } });
    expect(dropped).toEqual(['waits']);
    expect(connection?.queued('waits')).toBe(false);
    release();
    expect((await peer.lines(1))[0]).toContain('"id":"held"');
  });

  it('answers a handler that throws internal, and serves the next request', async () => {
    let calls = 0;
    const peer = await served(() => ({
      answer: async () => {
        if (++calls === 1) throw new Error('boom');
        return { ok: true, result: { cancelled: false } };
      },
    }));
    peer.send(hello('x'));
    expect(await peer.lines(1)).toEqual([
      '{"protocol":"loom-broker/2","id":"","ok":false,"error":{"code":"internal","message":"the broker failed: boom"}}',
    ]);
    peer.send(hello('y'));
    expect(await peer.lines(1)).toEqual([
      '{"protocol":"loom-broker/2","id":"y","ok":true,"result":{"cancelled":false}}',
    ]);
  });

  it('refuses a connection its admission refuses, before reading anything of it', async () => {
    const seen: string[] = [];
    const peer = await served(
      () => ({
        answer: async (request) => {
          seen.push(request.id);
          return { ok: true, result: { cancelled: false } };
        },
      }),
      { admit: async () => 'not you' },
    );
    peer.send(hello('x'));
    expect(await peer.lines(1)).toEqual([
      '{"protocol":"loom-broker/2","id":"","ok":false,"error":{"code":"forbidden","message":"connection refused: not you"}}',
    ]);
    expect(seen).toEqual([]);
  });
});
