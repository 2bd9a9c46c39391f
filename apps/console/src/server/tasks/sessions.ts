// Durable task sessions, in `<instance>/console-tasks.db` (SQLite): each session's recorded tool
// policy, its turns (input, origin, status, result) and its transcript. A session keeps the tool
// policy it was created with: restarting the console with more tools configured does not widen it;
// only a new session or an explicit refresh does (seed 001, LA-150…LA-152).
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { TaskSession, TaskSessionsAnswer, TaskTurn, TurnInput, TurnStatus } from '../../answers';
import type { TranscriptItem } from './transcript';

export const TASKS_DB = 'console-tasks.db';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS task_sessions (
  id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  policy TEXT NOT NULL,
  policy_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS task_turns (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES task_sessions(id),
  seq INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  input TEXT NOT NULL,
  origin_loom_id TEXT,
  status TEXT NOT NULL,
  result TEXT,
  UNIQUE (session_id, seq)
);
CREATE TABLE IF NOT EXISTS task_items (
  session_id TEXT NOT NULL REFERENCES task_sessions(id),
  seq INTEGER NOT NULL,
  turn_id TEXT NOT NULL,
  item TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)
);
`;

interface TurnRow {
  id: string;
  session_id: string;
  seq: number;
  created_at: string;
  input: string;
  origin_loom_id: string | null;
  status: TurnStatus;
  result: string | null;
}

const turnOf = (r: TurnRow): TaskTurn => ({
  id: r.id,
  session_id: r.session_id,
  seq: r.seq,
  created_at: r.created_at,
  input: JSON.parse(r.input) as TurnInput,
  originLoomId: r.origin_loom_id,
  status: r.status,
  result: r.result === null ? null : (JSON.parse(r.result) as Record<string, unknown>),
});

/** The task sessions of one instance. Open one per request or turn; `close()` when done. */
export class TaskStore {
  private readonly db: Database.Database;

  constructor(instanceDir: string) {
    this.db = new Database(join(instanceDir, TASKS_DB));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
  }

  createSession(tools: readonly string[], now = new Date()): TaskSession {
    const id = `ses-${randomUUID()}`;
    const at = now.toISOString();
    this.db
      .prepare('INSERT INTO task_sessions (id, created_at, policy, policy_at) VALUES (?, ?, ?, ?)')
      .run(id, at, JSON.stringify([...tools]), at);
    return { id, created_at: at, policy: { tools: [...tools], recorded_at: at } };
  }

  getSession(id: string): TaskSession | undefined {
    const row = this.db.prepare('SELECT * FROM task_sessions WHERE id = ?').get(id) as
      | { id: string; created_at: string; policy: string; policy_at: string }
      | undefined;
    if (row === undefined) return undefined;
    return {
      id: row.id,
      created_at: row.created_at,
      policy: { tools: JSON.parse(row.policy) as string[], recorded_at: row.policy_at },
    };
  }

  /** Newest first. */
  listSessions(limit = 50): TaskSessionsAnswer['sessions'] {
    const rows = this.db
      .prepare(
        'SELECT s.id, (SELECT COUNT(*) FROM task_turns t WHERE t.session_id = s.id) AS turns FROM task_sessions s ORDER BY s.created_at DESC, s.rowid DESC LIMIT ?',
      )
      .all(limit) as { id: string; turns: number }[];
    return rows.flatMap((r) => {
      const s = this.getSession(r.id);
      return s === undefined ? [] : [{ ...s, turns: r.turns }];
    });
  }

  /** The explicit policy refresh: the session's tools become `tools`. */
  refreshPolicy(id: string, tools: readonly string[], now = new Date()): TaskSession | undefined {
    const changed = this.db
      .prepare('UPDATE task_sessions SET policy = ?, policy_at = ? WHERE id = ?')
      .run(JSON.stringify([...tools]), now.toISOString(), id).changes;
    return changed === 0 ? undefined : this.getSession(id);
  }

  /** Records a turn's input before the turn starts; its origin is its own `loomId`. */
  startTurn(sessionId: string, input: TurnInput, now = new Date()): TaskTurn {
    const id = `turn-${randomUUID()}`;
    const insert = this.db.transaction(() => {
      const { next } = this.db
        .prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM task_turns WHERE session_id = ?')
        .get(sessionId) as { next: number };
      this.db
        .prepare(
          'INSERT INTO task_turns (id, session_id, seq, created_at, input, origin_loom_id, status) VALUES (?, ?, ?, ?, ?, ?, ?)',
        )
        .run(id, sessionId, next, now.toISOString(), JSON.stringify(input), input.loomId ?? null, 'running');
    });
    insert();
    return this.getTurn(id) as TaskTurn;
  }

  getTurn(id: string): TaskTurn | undefined {
    const row = this.db.prepare('SELECT * FROM task_turns WHERE id = ?').get(id) as TurnRow | undefined;
    return row === undefined ? undefined : turnOf(row);
  }

  turns(sessionId: string): TaskTurn[] {
    return (
      this.db
        .prepare('SELECT * FROM task_turns WHERE session_id = ? ORDER BY seq')
        .all(sessionId) as TurnRow[]
    ).map(turnOf);
  }

  /** Ends a turn; the origin is not touched. */
  finishTurn(
    id: string,
    status: Exclude<TurnStatus, 'running'>,
    result: Record<string, unknown> | null,
  ): void {
    this.db
      .prepare('UPDATE task_turns SET status = ?, result = ? WHERE id = ?')
      .run(status, result === null ? null : JSON.stringify(result), id);
  }

  /** Turns a console stopped in the middle of: marked `interrupted` when the next console opens them. */
  markInterrupted(): number {
    return this.db.prepare("UPDATE task_turns SET status = 'interrupted' WHERE status = 'running'").run()
      .changes;
  }

  append(sessionId: string, item: TranscriptItem): void {
    const { next } = this.db
      .prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM task_items WHERE session_id = ?')
      .get(sessionId) as { next: number };
    this.db
      .prepare('INSERT INTO task_items (session_id, seq, turn_id, item) VALUES (?, ?, ?, ?)')
      .run(sessionId, next, item.turn, JSON.stringify(item));
  }

  items(sessionId: string): TranscriptItem[] {
    return (
      this.db.prepare('SELECT item FROM task_items WHERE session_id = ? ORDER BY seq').all(sessionId) as {
        item: string;
      }[]
    ).map((r) => JSON.parse(r.item) as TranscriptItem);
  }

  close(): void {
    this.db.close();
  }
}
