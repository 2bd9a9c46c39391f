// One algorithm over a synchronous driver and an asynchronous one. better-sqlite3 answers with
// values, and its transaction must finish before anything else runs; pg answers with promises. An
// algorithm written as a generator yields each driver answer and is handed back its value: the
// synchronous runner hands a value straight back, so the whole algorithm runs in one call stack; the
// asynchronous runner awaits it first. It is the shape of Babel's `gensync`, kept to what we need.

/** A driver's answer: the value itself from a synchronous driver, a promise of it from an asynchronous one. */
export type Answer<T, Async extends boolean> = Async extends true ? Promise<T> : T;

/** An algorithm's steps: each yields one driver answer and receives its value. */
export type Steps<R> = Generator<unknown, R, unknown>;

/** One driver call inside {@link Steps}: `const row = yield* ask(dialect.prior(…))` gives its value. */
export function* ask<T>(answer: T | Promise<T>): Generator<T | Promise<T>, T, unknown> {
  return (yield answer) as T;
}

/** Runs steps whose answers are values, in the caller's call stack: nothing else runs between them. */
export function runSync<R>(steps: Steps<R>): R {
  let next = steps.next();
  while (!next.done) next = steps.next(next.value);
  return next.value;
}

/** Runs steps whose answers are promises, awaiting each. */
export async function runAsync<R>(steps: Steps<R>): Promise<R> {
  let next = steps.next();
  while (!next.done) next = steps.next(await next.value);
  return next.value;
}
