// FAKE broker socket server for @harness/commands tests — not a Loom host. It speaks the socket
// side of docs/protocol.md (framing and version from @harness/protocol) with the same script file
// as test/fixtures/fake-loom.mjs (`<queuePath>.json`), and answers runs as that script says through
// the same scriptedAnswer, so one scenario drives both host clients alike.
import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import {
  encodeLine,
  LineReader,
  MAX_REQUEST_LINE_BYTES,
  BROKER_PROTOCOL as PROTOCOL,
} from '@harness/protocol';
import { scriptedAnswer } from '../fixtures/fake-answer.mjs';

/** A running fake broker; `close()` stops it and removes its socket. */
export interface FakeBroker {
  path: string;
  server: Server;
  /** Connections accepted so far (the socket client keeps one). */
  connections: number;
  /** `hello` requests received so far (the socket client sends one per connection). */
  hellos: number;
  close(): Promise<void>;
}

/** Starts a fake broker on `path`, reading its script from `<path>.json` on every request. */
export async function startFakeBroker(path: string): Promise<FakeBroker> {
  let inflight = 0;
  const sockets = new Set<Socket>();
  const fake: FakeBroker = {
    path,
    server: undefined as unknown as Server,
    connections: 0,
    hellos: 0,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        fake.server.close(() => {
          rmSync(path, { force: true });
          resolve();
        });
      }),
  };
  const server = createServer((socket) => {
    fake.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const reader = new LineReader(MAX_REQUEST_LINE_BYTES);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      // No test sends a request line over the cap; one that did would end the connection.
      if (!reader.push(chunk)) socket.destroy();
      for (let line = reader.next(); line !== undefined; line = reader.next()) {
        if (line.ok) void handle(socket, line.text);
        else socket.destroy();
      }
    });
    socket.on('error', () => {});
  });
  fake.server = server;

  const send = (socket: Socket, msg: unknown) => {
    if (!socket.destroyed) socket.write(encodeLine(msg));
  };

  async function handle(socket: Socket, line: string): Promise<void> {
    const req = JSON.parse(line) as Record<string, unknown>;
    const id = req.id;
    const script = existsSync(`${path}.json`) ? JSON.parse(readFileSync(`${path}.json`, 'utf8')) : {};
    const log = (entry: Record<string, unknown>) => {
      if (script.log)
        appendFileSync(script.log, `${JSON.stringify({ via: 'socket', jobId: req.jobId, ...entry })}\n`);
    };
    if (req.op === 'hello') {
      fake.hellos++;
      // `hello.mode` scripts a broker that does not speak loom-broker/2.
      const mode = script.hello?.mode;
      if (mode === 'unsupported_protocol')
        return send(socket, {
          protocol: PROTOCOL,
          id,
          ok: false,
          error: { code: 'unsupported_protocol', message: 'this broker speaks loom-broker/0' },
        });
      if (mode === 'unreadable') {
        if (!socket.destroyed) socket.write('this is not json\n');
        return;
      }
      return send(socket, {
        protocol: PROTOCOL,
        id,
        ok: true,
        result: { protocol: PROTOCOL, run: 'fake-run', agent: 'agent:fake' },
      });
    }
    if (req.op === 'list') {
      log({ op: 'list' });
      const mode = script.list?.mode;
      if (mode === 'fail')
        return send(socket, { protocol: PROTOCOL, id, ok: false, error: { code: 'internal', message: 'x' } });
      if (mode === 'malformed')
        return send(socket, { protocol: PROTOCOL, id, ok: true, result: 'this is not a listing' });
      return send(socket, { protocol: PROTOCOL, id, ok: true, result: { commands: script.commands ?? [] } });
    }
    if (req.op === 'run') {
      const command = req.command as string;
      inflight++;
      log({
        op: 'run',
        command,
        args: req.args,
        loomId: req.loomId,
        expectedVersion: req.expectedVersion,
        readOnly: req.readOnly === true,
        concurrent: inflight,
        ...(req.progress === true ? { progress: true } : {}),
      });
      const behaviour = script.behaviour?.[command] ?? {};
      // `behaviour.progress` scripts the progress lines sent to a run that asked for them.
      if (req.progress === true)
        for (const progress of behaviour.progress ?? []) send(socket, { protocol: PROTOCOL, id, progress });
      // A command that takes this long: the duration is the behaviour scripted, not a wait.
      if (behaviour.sleepMs) await new Promise((r) => setTimeout(r, behaviour.sleepMs));
      inflight--;
      switch (behaviour.mode) {
        case 'lost':
          // An answer this client cannot read for this request (the connection stays up).
          return send(socket, { protocol: 'garbled', id, ok: true });
        case 'drop':
          socket.destroy();
          return;
        case 'malformed':
          return send(socket, { protocol: PROTOCOL, id, ok: true, result: { not: 'an answer' } });
        case 'usage':
          return send(socket, {
            protocol: PROTOCOL,
            id,
            ok: false,
            error: { code: 'bad_request', message: 'bad' },
          });
        case 'crash':
          return send(socket, {
            protocol: PROTOCOL,
            id,
            ok: false,
            error: { code: 'internal', message: 'x' },
          });
      }
      const answer = scriptedAnswer(script, {
        command,
        args: req.args,
        loomId: req.loomId,
        readOnly: req.readOnly === true,
      });
      return send(socket, { protocol: PROTOCOL, id, ok: true, result: answer });
    }
    if (req.op === 'cancel') {
      log({ op: 'cancel', target: req.target });
      // The fake stops nothing: the run it names answers as scripted.
      return send(socket, { protocol: PROTOCOL, id, ok: true, result: { cancelled: false } });
    }
    send(socket, {
      protocol: PROTOCOL,
      id,
      ok: false,
      error: { code: 'bad_request', message: 'unknown op' },
    });
  }

  await new Promise<void>((resolve) => server.listen(path, resolve));
  return fake;
}
