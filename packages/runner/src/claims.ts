// Deliveries of one signed body handled one at a time in this process. The store's primary key on
// (source, digest) already refuses a second acceptance; this queue makes a second delivery that
// arrives while the first is still writing its envelope wait for the first's outcome instead of
// racing it: if the first was accepted, the second is a duplicate; if it failed, the second tries.

/** Claims on replay keys (`<source>\0<digest>`), held while a delivery of that body is handled. */
export class BodyClaims {
  private readonly held = new Map<string, Promise<void>>();

  /**
   * Waits until no delivery of `key` is being handled, then claims it. Call the returned function
   * exactly once, when the delivery has been answered, to let the next one in.
   */
  async claim(key: string): Promise<() => void> {
    // Woken waiters run one at a time: the first re-checks, finds the key free and takes it
    // synchronously, so the others find it held again and keep waiting.
    for (let prior = this.held.get(key); prior !== undefined; prior = this.held.get(key)) await prior;
    let release = (): void => undefined;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.held.set(key, done);
    return () => {
      if (this.held.get(key) === done) this.held.delete(key);
      release();
    };
  }
}
