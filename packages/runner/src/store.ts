// Run records and received webhook deliveries in SQLite at `<instance>/runner/runs.db` (WAL; every
// change one statement or one transaction). The receiver commits an accepted body and its pending runs
// together, only after the envelope file is on disk, and answers 202 after that commit.
//
// Replays are recognised by what the forge signed, never by what it did not: `webhook_bodies` is keyed
// on (source, SHA-256 of the verified raw body), and the unsigned delivery id is only data in
// `webhook_deliveries`. runs.db files written before this hold a `deliveries` table keyed on that
// id; it is left as it was and never read.
//
// runs.db files written by earlier versions are brought up to date in place when opened (see
// `migrate`): every step checks the file's columns first, so opening twice, or from two processes at
// once, changes nothing the second time.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { JobStatus, Observation, RunRecord } from './records';
import { WEBHOOK_SOURCE_PREFIX } from './source-name';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY, harness TEXT NOT NULL, status TEXT NOT NULL, reason TEXT, path TEXT,
  trigger TEXT NOT NULL, source TEXT, delivery TEXT, event_file TEXT, prompt_delivery TEXT,
  stdin_is_prompt INTEGER NOT NULL DEFAULT 0, exit_code INTEGER, signal TEXT,
  created_at TEXT NOT NULL, started_at TEXT, ended_at TEXT, duration_ms INTEGER, log_file TEXT, message TEXT,
  observation TEXT
);
CREATE TABLE IF NOT EXISTS webhook_bodies (
  source TEXT NOT NULL, digest TEXT NOT NULL, event_id TEXT NOT NULL, event_file TEXT NOT NULL,
  received_at TEXT NOT NULL,
  PRIMARY KEY (source, digest)
);
CREATE INDEX IF NOT EXISTS webhook_bodies_received_at ON webhook_bodies (received_at);
CREATE TABLE IF NOT EXISTS webhook_deliveries (
  source TEXT NOT NULL, digest TEXT NOT NULL, delivery TEXT, outcome TEXT NOT NULL, received_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_body ON webhook_deliveries (source, digest);
CREATE INDEX IF NOT EXISTS webhook_deliveries_received_at ON webhook_deliveries (received_at);`;

/** A webhook body the receiver accepted: the replay key is its source and the SHA-256 of its bytes. */
export interface AcceptedBody {
  readonly source: string;
  /** SHA-256 (hex) of the exact raw bytes whose signature was verified. */
  readonly digest: string;
  readonly event_id: string;
  readonly event_file: string;
  readonly received_at: string;
}

/**
 * One delivery with a valid signature, as received. `delivery` is the forge's delivery-id header: it
 * is not signed, so it is kept for people reading the record and never used to decide anything.
 */
export interface ReceivedDelivery {
  readonly source: string;
  readonly digest: string;
  /** The delivery-id header as sent (at most 200 characters), `null` when there was none. */
  readonly delivery: string | null;
  /** `accepted`: the body was new and its runs were committed; `duplicate`: it was not, nothing ran. */
  readonly outcome: 'accepted' | 'duplicate';
  readonly received_at: string;
}

/** What {@link RunStore.accept} records about a delivery. */
export interface DeliveryToAccept {
  readonly source: string;
  readonly digest: string;
  readonly delivery: string | null;
  readonly eventId: string;
  readonly eventFile: string;
  readonly at: Date;
  /** The start of the retention window: bodies and deliveries received before it are forgotten. */
  readonly since: Date;
}

/**
 * The columns of `runs`, in the order of a record's fields. Reads name them rather than `*`: a file
 * migrated in place has its columns in another order, and `harness runs --json` prints the same.
 */
const RUN_COLUMNS = [
  'id',
  'harness',
  'status',
  'reason',
  'path',
  'trigger',
  'source',
  'delivery',
  'event_file',
  'prompt_delivery',
  'stdin_is_prompt',
  'exit_code',
  'signal',
  'created_at',
  'started_at',
  'ended_at',
  'duration_ms',
  'log_file',
  'message',
  'observation',
] as const satisfies readonly (keyof RunRecord)[];

const SELECT_RUNS = `SELECT ${RUN_COLUMNS.join(', ')} FROM runs`;

/**
 * Brings a runs.db written by an earlier version up to date, in one `BEGIN IMMEDIATE` transaction so
 * two processes opening the same old file cannot both migrate it:
 * - `observation` is added (no data changes);
 * - the prompt delivery mode, stored as `delivery`, moves to `prompt_delivery`; `delivery` becomes
 *   the forge's delivery id (unknown, so `null`, for the old rows); and `source`, stored as the
 *   source's name (`webhook.<id>`), becomes its id.
 */
function migrate(db: Database.Database): void {
  const columnsOf = () =>
    new Set((db.prepare('PRAGMA table_info(runs)').all() as { name: string }[]).map((c) => c.name));
  // An up-to-date file (the usual case) is only read: no write lock for `harness runs` to wait on.
  const current = columnsOf();
  if (current.has('observation') && current.has('prompt_delivery')) return;
  db.transaction(() => {
    const columns = columnsOf();
    if (!columns.has('observation')) db.exec('ALTER TABLE runs ADD COLUMN observation TEXT');
    if (!columns.has('prompt_delivery')) {
      db.exec('ALTER TABLE runs RENAME COLUMN delivery TO prompt_delivery');
      db.exec('ALTER TABLE runs ADD COLUMN delivery TEXT');
      db.prepare('UPDATE runs SET source = substr(source, ?) WHERE substr(source, 1, ?) = ?').run(
        WEBHOOK_SOURCE_PREFIX.length + 1,
        WEBHOOK_SOURCE_PREFIX.length,
        WEBHOOK_SOURCE_PREFIX,
      );
    }
  }).immediate();
}

type Row = Omit<RunRecord, 'stdin_is_prompt' | 'observation'> & {
  stdin_is_prompt: number;
  observation: string | null;
};

function toRecord(row: Row): RunRecord {
  return {
    ...row,
    stdin_is_prompt: row.stdin_is_prompt === 1,
    observation: row.observation === null ? null : (JSON.parse(row.observation) as Observation),
  };
}

/** Stored values of a record's fields: booleans as 0/1, the observation as JSON text. */
function column(key: string, value: unknown): unknown {
  if (key === 'stdin_is_prompt') return value ? 1 : 0;
  if (key === 'observation') return value === null || value === undefined ? null : JSON.stringify(value);
  return value;
}

/** A new run's first fields. */
export type NewRun = Pick<RunRecord, 'id' | 'harness' | 'status' | 'trigger'> &
  Partial<Omit<RunRecord, 'id' | 'harness' | 'status' | 'trigger' | 'created_at'>>;

/** The run store of one instance. */
export class RunStore {
  readonly db: Database.Database;

  constructor(file: string) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    migrate(this.db);
  }

  /** Inserts a run. */
  insert(run: NewRun): void {
    const row = {
      reason: null,
      path: null,
      source: null,
      delivery: null,
      event_file: null,
      prompt_delivery: null,
      exit_code: null,
      signal: null,
      started_at: null,
      ended_at: null,
      duration_ms: null,
      log_file: null,
      message: null,
      ...run,
      observation: column('observation', run.observation),
      stdin_is_prompt: run.stdin_is_prompt === true ? 1 : 0,
      created_at: new Date().toISOString(),
    };
    this.db
      .prepare(
        `INSERT INTO runs (${RUN_COLUMNS.join(', ')}) VALUES (${RUN_COLUMNS.map((c) => `@${c}`).join(', ')})`,
      )
      .run(row);
  }

  /** Updates some fields of a run. */
  update(id: string, fields: Partial<Omit<RunRecord, 'id' | 'harness' | 'created_at'>>): void {
    const entries = Object.entries(fields).map(([k, v]) => [k, column(k, v)] as const);
    if (entries.length === 0) return;
    const set = entries.map(([k]) => `${k} = @${k}`).join(', ');
    this.db.prepare(`UPDATE runs SET ${set} WHERE id = @id`).run({ ...Object.fromEntries(entries), id });
  }

  /** One run, or `undefined`. */
  get(id: string): RunRecord | undefined {
    const row = this.db.prepare(`${SELECT_RUNS} WHERE id = ?`).get(id) as Row | undefined;
    return row === undefined ? undefined : toRecord(row);
  }

  /** Runs, oldest first; optionally only one harness's or one status's. */
  list(filter: { harness?: string; status?: JobStatus } = {}): RunRecord[] {
    const where: string[] = [];
    if (filter.harness !== undefined) where.push('harness = @harness');
    if (filter.status !== undefined) where.push('status = @status');
    const sql = `${SELECT_RUNS} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY rowid`;
    return (this.db.prepare(sql).all(filter) as Row[]).map(toRecord);
  }

  /** The body of `source` with SHA-256 `digest` accepted at or after `since`, or `undefined`. */
  acceptedBody(source: string, digest: string, since: Date): AcceptedBody | undefined {
    return this.db
      .prepare('SELECT * FROM webhook_bodies WHERE source = ? AND digest = ? AND received_at >= ?')
      .get(source, digest, since.toISOString()) as AcceptedBody | undefined;
  }

  /**
   * Records a new body, its delivery and its pending runs in one transaction, after forgetting the
   * bodies and deliveries received before `since`. Returns `false` (and records nothing) when the
   * body was accepted within the window already, by this process or another on the same file.
   */
  accept(delivery: DeliveryToAccept, runs: readonly NewRun[]): boolean {
    return this.db.transaction(() => {
      this.forget(delivery.since);
      const at = delivery.at.toISOString();
      const inserted = this.db
        .prepare(
          `INSERT OR IGNORE INTO webhook_bodies (source, digest, event_id, event_file, received_at)
           VALUES (?, ?, ?, ?, ?)`,
        )
        .run(delivery.source, delivery.digest, delivery.eventId, delivery.eventFile, at);
      if (inserted.changes === 0) return false;
      this.insertDelivery(delivery.source, delivery.digest, delivery.delivery, 'accepted', at);
      for (const run of runs) this.insert(run);
      return true;
    })();
  }

  /** Records a delivery whose body was accepted already (it started nothing). */
  recordDuplicate(delivery: { source: string; digest: string; delivery: string | null; at: Date }): void {
    this.insertDelivery(
      delivery.source,
      delivery.digest,
      delivery.delivery,
      'duplicate',
      delivery.at.toISOString(),
    );
  }

  /** Deliveries with a valid signature, oldest first; optionally one source's, or one body's. */
  deliveries(filter: { source?: string; digest?: string } = {}): ReceivedDelivery[] {
    const where: string[] = [];
    if (filter.source !== undefined) where.push('source = @source');
    if (filter.digest !== undefined) where.push('digest = @digest');
    const sql = `SELECT * FROM webhook_deliveries ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY rowid`;
    return this.db.prepare(sql).all(filter) as ReceivedDelivery[];
  }

  private insertDelivery(
    source: string,
    digest: string,
    delivery: string | null,
    outcome: ReceivedDelivery['outcome'],
    at: string,
  ): void {
    this.db
      .prepare(
        'INSERT INTO webhook_deliveries (source, digest, delivery, outcome, received_at) VALUES (?, ?, ?, ?, ?)',
      )
      .run(source, digest, delivery, outcome, at);
  }

  /** The retention rule: bodies and delivery ids received before `since` are forgotten. */
  private forget(since: Date): void {
    const cutoff = since.toISOString();
    this.db.prepare('DELETE FROM webhook_bodies WHERE received_at < ?').run(cutoff);
    this.db.prepare('DELETE FROM webhook_deliveries WHERE received_at < ?').run(cutoff);
  }

  close(): void {
    this.db.close();
  }
}
