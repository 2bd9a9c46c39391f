import type { Readable } from 'node:stream';

/** The lines a stream has written so far, and a wait for the first one (from an index on) that matches. */
export class Lines {
  readonly all: string[] = [];
  #rest = '';
  readonly #waiters = new Set<() => void>();

  constructor(stream: Readable) {
    stream.setEncoding('utf8').on('data', (chunk: string) => {
      this.#rest += chunk;
      for (let nl = this.#rest.indexOf('\n'); nl >= 0; nl = this.#rest.indexOf('\n')) {
        this.all.push(this.#rest.slice(0, nl));
        this.#rest = this.#rest.slice(nl + 1);
      }
      for (const look of this.#waiters) look();
    });
  }

  /** The first line from index `from` on that `match` accepts, as soon as the stream has written it. */
  next(match: (line: string) => boolean, from = 0): Promise<string> {
    return new Promise((resolve) => {
      const look = (): void => {
        const found = this.all.slice(from).find(match);
        if (found === undefined) return;
        this.#waiters.delete(look);
        resolve(found);
      };
      this.#waiters.add(look);
      look();
    });
  }
}
