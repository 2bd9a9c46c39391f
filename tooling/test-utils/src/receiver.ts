// A real HTTP receiver on 127.0.0.1 for the notify tests and benches (host, console): records every request
// (path, headers, exact body) and answers by path — 200, 500, or holding the request unanswered
// until released — so a test waits on a request arriving, never on time passing.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as it arrived. */
export interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** How the receiver answers a path: `ok` (200, the default), `fail` (500) or `hold` (no answer until released). */
export type Answer = 'ok' | 'fail' | 'hold';

/** A running receiver. */
export interface Receiver {
  /** `http://127.0.0.1:<port><path>`. */
  url(path: string): string;
  readonly received: readonly Received[];
  /** Sets how `path` is answered from now on. */
  answer(path: string, how: Answer): void;
  /** Resolves with the first request, received or to come, that `match` accepts. */
  next(match: (r: Received) => boolean): Promise<Received>;
  /** How many requests are held unanswered now. */
  readonly held: number;
  /** Answers every held request 200. */
  release(): void;
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 at a free port. */
export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const answers = new Map<string, Answer>();
  const held = new Set<ServerResponse>();
  const waiters: { match: (r: Received) => boolean; resolve: (r: Received) => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(r);
      for (const w of waiters.splice(0)) {
        if (w.match(r)) w.resolve(r);
        else waiters.push(w);
      }
      const how = answers.get(r.path) ?? 'ok';
      if (how === 'hold') {
        held.add(res);
        res.on('close', () => held.delete(res));
        return;
      }
      res.writeHead(how === 'ok' ? 200 : 500).end(how === 'ok' ? 'ok' : 'broken');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    answer: (path, how) => answers.set(path, how),
    next(match) {
      const found = received.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
    get held() {
      return held.size;
    },
    release() {
      for (const res of held) res.writeHead(200).end('ok');
      held.clear();
    },
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
