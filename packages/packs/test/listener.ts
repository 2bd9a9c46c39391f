// A TCP listener on the host's loopback that counts who connects: the network a confined command
// must not reach, and an unconfined one (the control) does.
import { createServer } from 'node:net';

/** A listening counter; `connections` may be set back to 0 between tests. */
export interface CountingListener {
  readonly port: number;
  connections: number;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 (a free port), counting each connection and closing it at once. */
export async function listenCounting(): Promise<CountingListener> {
  let counted = 0;
  const server = createServer((socket) => {
    counted++;
    socket.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    get connections() {
      return counted;
    },
    set connections(n: number) {
      counted = n;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
