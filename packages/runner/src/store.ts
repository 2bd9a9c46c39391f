// Run records and received deliveries in SQLite at `<instance>/runner/runs.db` (WAL; every change one
// statement or one transaction). The receiver commits a delivery and its pending runs together, only
// after the envelope file is on disk, and answers 202 after that commit.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Observation, RunRecord, RunStatus } from './records';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY, harness TEXT NOT NULL, status TEXT NOT NULL, reason TEXT, path TEXT,
  trigger TEXT NOT NULL, source TEXT, event_file TEXT, delivery TEXT,
  stdin_is_prompt INTEGER NOT NULL DEFAULT 0, exit_code INTEGER, signal TEXT,
  created_at TEXT NOT NULL, started_at TEXT, ended_at TEXT, duration_ms INTEGER, log_file TEXT, message TEXT
);
CREATE TABLE IF NOT EXISTS deliveries (
  source TEXT NOT NULL, delivery TEXT NOT NULL, event_file TEXT NOT NULL, received_at TEXT NOT NULL,
  PRIMARY KEY (source, delivery)
);`;

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
    // runs.db files written before observation existed gain the column (no data changes).
    const columns = this.db.prepare('PRAGMA table_info(runs)').all() as { name: string }[];
    if (!columns.some((c) => c.name === 'observation'))
      this.db.exec('ALTER TABLE runs ADD COLUMN observation TEXT');
  }

  /** Inserts a run. */
  insert(run: NewRun): void {
    const row = {
      reason: null,
      path: null,
      source: null,
      event_file: null,
      delivery: null,
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
        `INSERT INTO runs (id, harness, status, reason, path, trigger, source, event_file, delivery, stdin_is_prompt,
          exit_code, signal, created_at, started_at, ended_at, duration_ms, log_file, message, observation)
         VALUES (@id, @harness, @status, @reason, @path, @trigger, @source, @event_file, @delivery, @stdin_is_prompt,
          @exit_code, @signal, @created_at, @started_at, @ended_at, @duration_ms, @log_file, @message, @observation)`,
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
    const row = this.db.prepare('SELECT * FROM runs WHERE id = ?').get(id) as Row | undefined;
    return row === undefined ? undefined : toRecord(row);
  }

  /** Runs, oldest first; optionally only one harness's or one status's. */
  list(filter: { harness?: string; status?: RunStatus } = {}): RunRecord[] {
    const where: string[] = [];
    if (filter.harness !== undefined) where.push('harness = @harness');
    if (filter.status !== undefined) where.push('status = @status');
    const sql = `SELECT * FROM runs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY rowid`;
    return (this.db.prepare(sql).all(filter) as Row[]).map(toRecord);
  }

  /** Whether a delivery id of a source was already accepted. */
  seen(source: string, delivery: string): boolean {
    return (
      this.db.prepare('SELECT 1 FROM deliveries WHERE source = ? AND delivery = ?').get(source, delivery) !==
      undefined
    );
  }

  /**
   * Records an accepted delivery and its pending runs in one transaction. Returns `false` (and
   * records nothing) when the delivery id was already accepted.
   */
  accept(
    delivery: { source: string; delivery: string; eventFile: string },
    runs: readonly NewRun[],
  ): boolean {
    return this.db.transaction(() => {
      const inserted = this.db
        .prepare(
          'INSERT OR IGNORE INTO deliveries (source, delivery, event_file, received_at) VALUES (?, ?, ?, ?)',
        )
        .run(delivery.source, delivery.delivery, delivery.eventFile, new Date().toISOString());
      if (inserted.changes === 0) return false;
      for (const run of runs) this.insert(run);
      return true;
    })();
  }

  close(): void {
    this.db.close();
  }
}
