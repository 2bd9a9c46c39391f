// The one wait of the tests: for a condition the code under test makes true (a file written, a
// process gone, a row's status), never for time to pass. It looks again every few milliseconds and
// gives up at a deadline with a message naming what it waited for.

/** A value `until` reads as "not yet". */
type NotYet = false | 0 | '' | null | undefined;

/** How long `until` waits and how often it looks. */
export interface UntilOptions {
  /** Gives up after this many milliseconds (default 20 000). */
  timeoutMs?: number;
  /** Looks again after this many milliseconds (default 25). */
  everyMs?: number;
}

/**
 * Resolves with the first truthy value `check` returns, sync or async, looking again every
 * `everyMs`; rejects after `timeoutMs` with "still waiting after <n> ms for <what>". `what` may be a
 * function, called only at the deadline, so the message can show the state last seen. An error
 * `check` throws ends the wait at once: a check that may fail while it waits catches its own.
 */
export async function until<T>(
  check: () => T | Promise<T>,
  what: string | (() => string),
  options: number | UntilOptions = {},
): Promise<Exclude<T, NotYet>> {
  const { timeoutMs = 20_000, everyMs = 25 } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Exclude<T, NotYet>;
    if (Date.now() > deadline) {
      throw new Error(`still waiting after ${timeoutMs} ms for ${typeof what === 'string' ? what : what()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
