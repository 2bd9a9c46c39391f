// What the host's throughput benchmarks share: the PostgreSQL they need (or a skip line), the
// interleaved rounds that time a subject beside its anchor, and the store-against-raw compose run.
import { connect } from 'node:net';
import { summarize, writeResult } from '@harness/bench-utils';
import type { Store } from '@harness/store';

/** The PostgreSQL settings the benchmarks use: PGHOST … from the environment, else 127.0.0.1:5432, database test, user postgres. */
export const PG_ENV = {
  PGHOST: process.env.PGHOST || '127.0.0.1',
  PGPORT: process.env.PGPORT || '5432',
  PGDATABASE: process.env.PGDATABASE || 'test',
  PGUSER: process.env.PGUSER || 'postgres',
};

/** Ends the process with a skip line naming the benchmark when nothing answers at {@link PG_ENV}. */
export async function requirePostgres(name: string): Promise<void> {
  const answers = await new Promise<boolean>((resolve) => {
    const s = connect({ host: PG_ENV.PGHOST, port: Number(PG_ENV.PGPORT) });
    s.once('connect', () => resolve(true)).once('error', () => resolve(false));
    s.setTimeout(1000, () => resolve(false));
  });
  if (answers) return;
  process.stdout.write(
    `${name}: skipped, nothing answers on ${PG_ENV.PGHOST}:${PG_ENV.PGPORT} (docs/host.md, "Several hosts")\n`,
  );
  process.exit(0);
}

/** Each call makes `batch` composes of `components` components, each a new loom under a new request id. */
function composeBatches(store: Store, batch: number, components: number): () => Promise<void> {
  let seq = 0;
  return async () => {
    for (let b = 0; b < batch; b++) {
      const n = seq++;
      await store.compose({
        namespace: 'bench/agent:bench',
        actor: 'agent:bench',
        run: 'bench',
        requestId: `req-${n}`,
        components: Array.from({ length: components }, (_, i) => ({ ref: `page:p${n}-${i}` })),
        argsHash: 'h',
      });
    }
  };
}

/** Milliseconds `fn` took. */
async function time(fn: () => Promise<void>): Promise<number> {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

/**
 * Takes `rounds` samples of each side, alternating which goes first so neither always runs on a
 * warmer cache, and returns each side's median.
 */
export async function interleaved(
  rounds: number,
  subject: () => Promise<number>,
  anchor: () => Promise<number>,
): Promise<{ subject: number; anchor: number }> {
  const s: number[] = [];
  const a: number[] = [];
  for (let i = 0; i < rounds; i++) {
    if (i % 2) {
      s.push(await subject());
      a.push(await anchor());
    } else {
      a.push(await anchor());
      s.push(await subject());
    }
  }
  return { subject: summarize(s).median, anchor: summarize(a).median };
}

/** A store-against-raw compose benchmark: what {@link composeThroughput} needs. */
export interface ComposeThroughput {
  /** The result's name (`bench/results/<name>.json`). */
  name: string;
  store: Store;
  /** The anchor: the same rows as one compose (`components` components), inserted raw, under request number `n`. */
  rawCompose: (n: number) => unknown;
  batch: number;
  components: number;
  rounds: number;
  subjectLabel: string;
  anchorLabel: string;
  /** Conditions added to the notes (the server, its settings). */
  conditions?: string;
}

/**
 * Composes through the store and raw, `batch` at a time, one warm-up batch each, then `rounds`
 * interleaved timed batches; writes composes per second for both and their ratio (target ≥ 0.5).
 */
export async function composeThroughput(b: ComposeThroughput): Promise<void> {
  const storeSide = composeBatches(b.store, b.batch, b.components);
  let rseq = 0;
  const rawSide = async () => {
    for (let i = 0; i < b.batch; i++) {
      // A synchronous anchor (better-sqlite3) stays synchronous: no await per compose.
      const done = b.rawCompose(rseq++);
      if (done instanceof Promise) await done;
    }
  };
  await storeSide();
  await rawSide();
  const ms = await interleaved(
    b.rounds,
    () => time(storeSide),
    () => time(rawSide),
  );
  const storeOps = (b.batch / ms.subject) * 1000;
  const rawOps = (b.batch / ms.anchor) * 1000;
  writeResult(b.name, {
    unit: 'composes per second',
    subject: { label: b.subjectLabel, median: storeOps },
    anchor: { label: b.anchorLabel, median: rawOps },
    ratio: storeOps / rawOps,
    target: { ratioAtLeast: 0.5 },
    pass: storeOps / rawOps >= 0.5,
    notes: `medians over ${b.rounds} interleaved rounds of ${b.batch} composes${b.conditions === undefined ? '' : `; ${b.conditions}`}`,
  });
}
