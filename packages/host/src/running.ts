// Records of the pack commands a broker is running, and the reaper that kills what a crashed broker
// left behind. @harness/exec kills a run's process group on every normal exit of its caller, but a
// broker killed with SIGKILL runs no exit hook: its commands' groups live on, and their timeouts
// (timers in the dead process) never fire. So from before a command starts until its end event is
// recorded, a record is kept in one row of `<instance>/running/records.db` (its process group once
// spawned); the next broker on the instance kills what those records name before it serves, and
// records an audit event for every record it finds (docs/host.md, "Commands outliving a crashed
// broker"). Older brokers kept one JSON file per record in the same directory; those are still read.
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { groupAlive, procStatFields } from '@harness/exec/internal';
import type { AuditEventInput, Store } from '@harness/store';
import Database from 'better-sqlite3';
import { HostError, HostErrorCode } from './errors';

/** The directory inside an instance that holds the records of running pack commands. */
export const RUNNING_DIR = 'running';

/** The SQLite database in {@link RUNNING_DIR} with one row per running pack command. */
export const RUNNING_DB = 'records.db';

/** The audit action of one reaped group. */
export const REAP_ACTION = 'host:reap';

/** The actor a reap is recorded under: the host itself, not any agent. */
export const REAP_ACTOR = 'host:broker';

// Temp files (of brokers that wrote one JSON file per record) older than this belong to a writer that
// died between write and rename.
const STALE_TEMP_MS = 60_000;
// How long to wait for a SIGKILLed group to vanish before moving on (a process in uninterruptible
// sleep cannot be hurried; the record is deleted either way, the audit says whether it was gone).
const GONE_WAIT_MS = 2_000;
const POLL_MS = 10;

/**
 * One record: a row of `<instance>/running/records.db` (its `record` column, this object as JSON),
 * or a file of an older broker, `<instance>/running/<call id>.json` (version 1: `<pgid>.json`).
 */
export interface RunningRecord {
  version: 1 | 2;
  /** The call's id, as its `start` audit event has it (absent in a version 1 record). */
  callId?: string;
  /** The command's process (the group leader); `null` until it is spawned. */
  pid: number | null;
  /** Its process group id (equal to `pid`); `null` until it is spawned. */
  pgid: number | null;
  /**
   * The leader's start time, field 22 of `/proc/<pid>/stat` (clock ticks since boot), so a reused
   * pid is told apart from ours; `null` where there is no /proc (macOS).
   */
  startTime: string | null;
  /** The broker process that runs the command, with its own start time. */
  owner: { pid: number; startTime: string | null };
  commandId: string;
  run: string;
  actor: string;
  /** ISO time the command was spawned. */
  startedAt: string;
}

/** What the reaper did with one record. */
export type ReapOutcome =
  /** The group was still there: it got SIGKILL. */
  | 'reaped'
  /** The leader is gone: nothing to kill. */
  | 'gone'
  /** A process holds the pid, but started at another time: not ours, left alone. */
  | 'reused'
  /** The broker that wrote the record still runs (another broker on the instance): left in place. */
  | 'owner_alive'
  /** The broker died before it recorded a process: none started, or its pid is not known. */
  | 'unstarted'
  /** The file is not a record; deleted. */
  | 'invalid';

/** One record the reaper looked at. */
export interface ReapResult {
  file: string;
  outcome: ReapOutcome;
  record?: RunningRecord;
  /** For `reaped`: whether no live member of the group was left when the reaper moved on. */
  groupGone?: boolean;
}

// Asked on every run: /proc does not come or go while the broker runs.
let procAvailable: boolean | undefined;
const hasProc = (): boolean => {
  procAvailable ??= process.platform === 'linux' && existsSync('/proc/self/stat');
  return procAvailable;
};

// The broker's own start time never changes; read it once.
let ownStartTime: string | null | undefined;
const brokerStartTime = (): string | null => {
  if (ownStartTime === undefined) ownStartTime = processStartTime(process.pid) ?? null;
  return ownStartTime;
};

/**
 * The start time of `pid` (field 22 of `/proc/<pid>/stat`: clock ticks after boot), as a string;
 * `undefined` when the process does not exist, `null` where /proc is not available.
 */
export function processStartTime(pid: number): string | null | undefined {
  if (!hasProc()) return null;
  // Field 22 is index 19 counting from field 3.
  return procStatFields(pid)?.[19];
}

/** Whether `kill(pid, 0)` finds the process (EPERM: it exists, owned by someone else). */
function signalReaches(target: number): boolean {
  try {
    process.kill(target, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the process `pid` that started at `startTime` is still the one running. With /proc and a
 * recorded start time that is exact; without, `kill(pid, 0)` is all there is (a reused pid passes).
 */
function sameProcess(pid: number, startTime: string | null): 'same' | 'gone' | 'reused' {
  if (startTime !== null && hasProc()) {
    const now = processStartTime(pid);
    if (now === undefined) return 'gone';
    return now === startTime ? 'same' : 'reused';
  }
  return signalReaches(pid) ? 'same' : 'gone';
}

function parseRecord(text: string): RunningRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const r = value as Partial<RunningRecord> | null;
  const posInt = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) > 1;
  const time = (t: unknown): t is string | null => t === null || typeof t === 'string';
  if (r === null || typeof r !== 'object') return undefined;
  // Version 2 records a call before its process exists; version 1 always named one.
  const pidOk = r.version === 2 && r.pid === null && r.pgid === null ? true : posInt(r.pid) && posInt(r.pgid);
  if (
    (r.version !== 1 && r.version !== 2) ||
    (r.version === 2 && typeof r.callId !== 'string') ||
    !pidOk ||
    !time(r.startTime) ||
    typeof r.owner !== 'object' ||
    r.owner === null ||
    !posInt(r.owner.pid) ||
    !time(r.owner.startTime) ||
    typeof r.commandId !== 'string' ||
    typeof r.run !== 'string' ||
    typeof r.actor !== 'string' ||
    typeof r.startedAt !== 'string'
  ) {
    return undefined;
  }
  return r as RunningRecord;
}

/** What the host knows of a call before its process starts. */
export interface RunningCommand {
  /** The call's id (`payload.call_id` of its audit events); names the record file. */
  callId: string;
  commandId: string;
  run: string;
  actor: string;
}

/** The record of one call, from before its process starts until its end event is recorded. */
export interface RunningTrack {
  /** Adds the spawned process group to the record (exec's `onSpawn`); throws when it cannot. */
  spawned(info: { pid: number; pgid: number }): void;
  /** Removes the record, if it is still ours. */
  release(): void;
}

/** The running records of one instance: where a broker records the calls it runs. */
export interface RunningLog {
  /**
   * Records a call before its process starts and returns the functions that add its process group
   * once spawned and remove the record once the call's end event is recorded. Each is one committed
   * SQLite transaction (WAL, `synchronous = NORMAL`: it survives the broker being killed). Throws a
   * `running_record` HostError when the record cannot be written: before the spawn the call is then
   * not run; at the spawn exec kills the group rather than run it unrecorded.
   */
  record(command: RunningCommand): RunningTrack;
  /** Closes the database (records still open stay in it, for the next broker's reaper). */
  close(): void;
}

const SCHEMA = 'CREATE TABLE IF NOT EXISTS running (call_id TEXT PRIMARY KEY, record TEXT NOT NULL)';

/**
 * Opens `<instanceDir>/running/records.db`, creating the directory (0700) and the database (0600;
 * SQLite gives its log files the database's mode) when missing.
 */
function openRunningDb(instanceDir: string): Database.Database {
  const dir = join(instanceDir, RUNNING_DIR);
  const file = join(dir, RUNNING_DB);
  let db: Database.Database | undefined;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Created empty with its mode first, so that no moment exists where others may read it.
    if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
    db = new Database(file);
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    // Every call writes here; as in the store, a log grown by a burst is cut back after a checkpoint.
    db.pragma('journal_size_limit = 4194304');
    db.exec(SCHEMA);
    return db;
  } catch (cause) {
    db?.close();
    throw new HostError(
      HostErrorCode.running_record,
      `could not open the running records ${file} (${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message}); pack commands are not run untracked. Make ${dir} writable by the broker`,
      { cause },
    );
  }
}

/**
 * The running records of `instanceDir`. The database is opened at the first record, so a broker
 * that runs no pack command never creates it.
 */
export function openRunningLog(instanceDir: string): RunningLog {
  let db: Database.Database | undefined;
  let statements:
    | { insert: Database.Statement; update: Database.Statement; remove: Database.Statement }
    | undefined;
  const open = () => {
    if (statements === undefined) {
      db = openRunningDb(instanceDir);
      statements = {
        insert: db.prepare('INSERT INTO running (call_id, record) VALUES (?, ?)'),
        update: db.prepare('UPDATE running SET record = ? WHERE call_id = ?'),
        // Only our own record: the owner's pid and the time the record was made.
        remove: db.prepare(
          "DELETE FROM running WHERE call_id = ? AND json_extract(record, '$.owner.pid') = ? AND json_extract(record, '$.startedAt') = ?",
        ),
      };
    }
    return statements;
  };
  return {
    record(command) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(command.callId)) {
        throw new HostError(
          HostErrorCode.running_record,
          `the call id ${JSON.stringify(command.callId)} cannot name a running record`,
        );
      }
      const sql = open();
      const record: RunningRecord = {
        version: 2,
        callId: command.callId,
        pid: null,
        pgid: null,
        startTime: null,
        owner: { pid: process.pid, startTime: brokerStartTime() },
        commandId: command.commandId,
        run: command.run,
        actor: command.actor,
        startedAt: new Date().toISOString(),
      };
      const failed = (cause: unknown): HostError =>
        new HostError(
          HostErrorCode.running_record,
          `could not record ${command.commandId}'s run in ${join(instanceDir, RUNNING_DIR, RUNNING_DB)} (${(cause as { code?: string }).code ?? (cause as Error).message}); the command was not run, or killed rather than run untracked. Make the directory writable by the broker`,
          { cause },
        );
      try {
        sql.insert.run(command.callId, JSON.stringify(record));
      } catch (cause) {
        throw failed(cause);
      }
      return {
        spawned(info) {
          // `undefined` would mean the leader is already gone (and reaped by us): nothing to verify.
          record.startTime = processStartTime(info.pid) ?? null;
          record.pid = info.pid;
          record.pgid = info.pgid;
          let changed: number;
          try {
            changed = sql.update.run(JSON.stringify(record), command.callId).changes;
          } catch (cause) {
            throw failed(cause);
          }
          if (changed !== 1) throw failed(new Error('the record was removed before its process started'));
        },
        release() {
          try {
            sql.remove.run(command.callId, process.pid, record.startedAt);
          } catch {
            // The database is gone or closed: the next broker's reaper settles the record.
          }
        },
      };
    },
    close() {
      db?.close();
      db = undefined;
      statements = undefined;
    },
  };
}

async function waitGroupGone(pgid: number): Promise<boolean> {
  const deadline = Date.now() + GONE_WAIT_MS;
  while (groupAlive(pgid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return true;
}

/** The audit event of one record the reaper settled. */
function reapEvent(name: string, result: ReapResult): AuditEventInput {
  const record = result.record;
  return {
    run: record?.run ?? 'host',
    actor: REAP_ACTOR,
    job: null,
    command: record?.commandId ?? '*',
    action: REAP_ACTION,
    phase: 'reap',
    outcome: result.outcome,
    code: 'ok',
    reason: 'broker_crashed',
    payload: record
      ? {
          call_id: record.callId ?? null,
          pid: record.pid,
          pgid: record.pgid,
          start_time: record.startTime,
          started_at: record.startedAt,
          agent_actor: record.actor,
          owner_pid: record.owner.pid,
          ...(result.outcome === 'reaped'
            ? {
                verified_by: record.startTime === null ? 'kill-0' : 'proc-start-time',
                signal: 'SIGKILL',
                group_gone: result.groupGone,
              }
            : {}),
        }
      : { file: name },
  };
}

/** What to do with one record whose broker is gone; kills its group when it still runs. */
async function settle(file: string, record: RunningRecord): Promise<ReapResult> {
  if (record.pid === null || record.pgid === null) return { file, outcome: 'unstarted', record };
  // A record written where /proc was absent has no start time: ask the group itself.
  const leader =
    record.startTime === null
      ? signalReaches(-record.pgid)
        ? 'same'
        : 'gone'
      : sameProcess(record.pid, record.startTime);
  if (leader !== 'same') return { file, outcome: leader, record };
  try {
    process.kill(-record.pgid, 'SIGKILL');
  } catch {
    // ESRCH: it ended between the check and the kill.
  }
  return { file, outcome: 'reaped', record, groupGone: await waitGroupGone(record.pgid) };
}

/** One record found by the reaper, and how to delete it once its event is committed. */
interface Found {
  /** The file name, or `records.db#<call id>` for a row. */
  name: string;
  /** The file's path, or the database's. */
  file: string;
  text: string;
  remove(): void;
}

/** The JSON files of older brokers; stale temp files are deleted on the way. */
function legacyRecords(dir: string, entries: string[]): Found[] {
  const found: Found[] = [];
  for (const name of entries.sort()) {
    const file = join(dir, name);
    if (!name.endsWith('.json')) {
      if (name.endsWith('.tmp')) {
        try {
          if (Date.now() - statSync(file).mtimeMs > STALE_TEMP_MS) rmSync(file, { force: true });
        } catch {
          // Renamed or removed by its writer meanwhile.
        }
      }
      continue;
    }
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue; // removed by its broker while we looked
    }
    found.push({ name, file, text, remove: () => rmSync(file, { force: true }) });
  }
  return found;
}

/** The rows of `records.db`, each deleted by its call id. */
function rowRecords(db: Database.Database, file: string): Found[] {
  const remove = db.prepare('DELETE FROM running WHERE call_id = ?');
  const rows = db.prepare('SELECT call_id, record FROM running ORDER BY call_id').all() as {
    call_id: string;
    record: string;
  }[];
  return rows.map((row) => ({
    name: `${RUNNING_DB}#${row.call_id}`,
    file,
    text: row.record,
    remove: () => {
      remove.run(row.call_id);
    },
  }));
}

/**
 * Every running record of an instance as it stands, changing nothing: the rows of `records.db` (named
 * `records.db#<call id>`) and the JSON files of older brokers; `record` is `undefined` for one that
 * does not read as a record.
 */
export function listRunning(instanceDir: string): { name: string; record: RunningRecord | undefined }[] {
  const dir = join(instanceDir, RUNNING_DIR);
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  const files = entries
    .filter((name) => name.endsWith('.json'))
    .sort()
    .flatMap((name) => {
      try {
        return [{ name, record: parseRecord(readFileSync(join(dir, name), 'utf8')) }];
      } catch {
        return [];
      }
    });
  if (!entries.includes(RUNNING_DB)) return files;
  const db = new Database(join(dir, RUNNING_DB), { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    // A database its broker is creating this instant may not have its table yet.
    db.exec(SCHEMA);
    const rows = db.prepare('SELECT call_id, record FROM running ORDER BY call_id').all() as {
      call_id: string;
      record: string;
    }[];
    return [
      ...files,
      ...rows.map((r) => ({ name: `${RUNNING_DB}#${r.call_id}`, record: parseRecord(r.record) })),
    ];
  } finally {
    db.close();
  }
}

/**
 * Settles what a crashed broker left on this instance. For every record in
 * `<instanceDir>/running/records.db` (and every JSON record file of an older broker beside it)
 * whose broker is gone: the recorded group gets SIGKILL when its leader still exists with the
 * recorded start time (where /proc is absent: when `kill(-pgid, 0)` reaches it, with the pid-reuse
 * caveat of docs/host.md); a record whose leader is gone, whose pid now belongs to another process,
 * or that names no process yet, gets no signal. Every such record becomes one audit event
 * (`action: "host:reap"`, `outcome` the {@link ReapOutcome}) in `store`, and the record is deleted
 * only once its event is committed: a reaper killed in between leaves it for the next one.
 */
export async function reapRunning(instanceDir: string, store: Store): Promise<ReapResult[]> {
  const dir = join(instanceDir, RUNNING_DIR);
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  const db = entries.includes(RUNNING_DB) ? openRunningDb(instanceDir) : undefined;
  try {
    const found = [...legacyRecords(dir, entries), ...(db ? rowRecords(db, join(dir, RUNNING_DB)) : [])];
    const results: ReapResult[] = [];
    for (const one of found) {
      const record = parseRecord(one.text);
      if (record !== undefined && sameProcess(record.owner.pid, record.owner.startTime) === 'same') {
        // A live broker (this process or another on the same instance) still owns the run.
        results.push({ file: one.file, outcome: 'owner_alive', record });
        continue;
      }
      const result: ReapResult =
        record === undefined ? { file: one.file, outcome: 'invalid' } : await settle(one.file, record);
      results.push(result);
      try {
        await store.appendAudit(reapEvent(one.name, result));
      } catch (error) {
        process.stderr.write(
          `loom: could not record the reap of ${one.name} in ${dir} (${(error as Error).message}); it stays for the next broker start\n`,
        );
        continue;
      }
      one.remove();
    }
    return results;
  } finally {
    db?.close();
  }
}
