// The commands a broker is starting whose process id it does not know yet. A command's session is
// put on the list its broker refuses connections from when the spawn reports its pid; a command
// fast enough to connect back before that report would otherwise find the list empty and be
// served. The broker judges a connection only once no spawn is between its start and its report.

/** Counts the spawns between "about to start" and "pid known", and lets a judge wait for none. */
export class StartingSpawns {
  #count = 0;
  #waiters: Array<() => void> = [];

  /** A spawn begins; the function returned ends it (its pid is on the list, or it never started). Ending twice counts once. */
  begin(): () => void {
    this.#count += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#count -= 1;
      if (this.#count > 0) return;
      const waiters = this.#waiters;
      this.#waiters = [];
      for (const wake of waiters) wake();
    };
  }

  /** Resolves once no spawn is starting (at once when none is). */
  settled(): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}
