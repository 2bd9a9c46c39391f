// A TCP proxy in front of the tests' PostgreSQL server that cuts a connection at a chosen message:
// a real lost connection, at a moment a test picks (before a statement reaches the server, or
// right after the server committed and before its answer reaches the client).
import { connect, createServer, type Server, type Socket } from 'node:net';

/** A one-shot fault: the first client message whose SQL text matches is where the cut happens. */
export interface Fault {
  /** Picks the message by its SQL text (a simple query, or the text of a parsed statement). */
  match: (sql: string) => boolean;
  /**
   * `before`: the message is dropped and the connection cut (the server never sees it).
   * `after`: the message reaches the server, whose answer is awaited and then thrown away as the
   * connection is cut (the statement ran; the client never learns it).
   */
  cut: 'before' | 'after';
}

/** A running proxy: its port, the faults it will inject, and how many it injected. */
export interface PgProxy {
  readonly port: number;
  arm(fault: Fault): void;
  readonly injected: number;
  close(): Promise<void>;
}

/** The SQL text of a Query ('Q') or Parse ('P') message body, else undefined. */
function sqlOf(type: number, body: Buffer): string | undefined {
  if (type === 0x51) return body.toString('utf8', 0, Math.max(0, body.length - 1));
  if (type === 0x50) {
    const nameEnd = body.indexOf(0);
    const textEnd = body.indexOf(0, nameEnd + 1);
    return body.toString('utf8', nameEnd + 1, textEnd);
  }
  return undefined;
}

/** Starts a proxy to `host:port` on 127.0.0.1 (an ephemeral port). */
export async function startPgProxy(host: string, port: number): Promise<PgProxy> {
  const faults: Fault[] = [];
  let injected = 0;
  const sockets = new Set<Socket>();

  const pipe = (client: Socket): void => {
    const server = connect({ host, port });
    sockets.add(client);
    sockets.add(server);
    const cut = () => {
      client.destroy();
      server.destroy();
    };
    client.on('close', cut);
    server.on('close', cut);
    client.on('error', cut);
    server.on('error', cut);
    let swallow = false;
    server.on('data', (chunk: Buffer) => {
      if (swallow) return cut();
      client.write(chunk);
    });
    // Client messages: the first (startup) has no type byte; every later one is type + length.
    let buffered = Buffer.alloc(0);
    let started = false;
    client.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        if (!started) {
          if (buffered.length < 4) return;
          const len = buffered.readInt32BE(0);
          if (buffered.length < len) return;
          server.write(buffered.subarray(0, len));
          buffered = buffered.subarray(len);
          started = true;
          continue;
        }
        if (buffered.length < 5) return;
        const len = buffered.readInt32BE(1) + 1;
        if (buffered.length < len) return;
        const message = buffered.subarray(0, len);
        buffered = buffered.subarray(len);
        const sql = sqlOf(message[0] as number, message.subarray(5));
        const i = sql === undefined ? -1 : faults.findIndex((f) => f.match(sql));
        if (i >= 0) {
          const [fault] = faults.splice(i, 1);
          injected++;
          if (fault?.cut === 'before') return cut();
          // Pass it on; the server's next bytes are its answer: drop them and the connection.
          swallow = true;
        }
        server.write(message);
      }
    });
  };

  const listener: Server = createServer(pipe);
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const address = listener.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    arm: (fault) => {
      faults.push(fault);
    },
    get injected() {
      return injected;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        listener.close(() => resolve());
      }),
  };
}
