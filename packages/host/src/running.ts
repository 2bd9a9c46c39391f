// Records of the pack commands a broker is running, and the reaper that kills what a crashed broker
// left behind. @harness/exec kills a run's process group on every normal exit of its caller, but a
// broker killed with SIGKILL runs no exit hook: its commands' groups live on, and their timeouts
// (timers in the dead process) never fire. So while a command runs, its group is written to
// `<instance>/running/<pgid>.json`; the next broker on the instance kills what those records name
// before it serves (docs/host.md, "Commands outliving a crashed broker").
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { HOST_ERROR_CODES, HostError } from './errors';
import type { Store } from './store/types';

/** The directory inside an instance that holds one record per running pack command. */
export const RUNNING_DIR = 'running';

/** The audit action of one reaped group. */
export const REAP_ACTION = 'host:reap';

/** The actor a reap is recorded under: the host itself, not any agent. */
export const REAP_ACTOR = 'host:broker';

// Temp files older than this belong to a writer that died between write and rename.
const STALE_TEMP_MS = 60_000;
// How long to wait for a SIGKILLed group to vanish before moving on (a process in uninterruptible
// sleep cannot be hurried; the record is deleted either way, the audit says whether it was gone).
const GONE_WAIT_MS = 2_000;
const POLL_MS = 10;

/** What `<instance>/running/<pgid>.json` holds. */
export interface RunningRecord {
  version: 1;
  /** The command's process (the group leader). */
  pid: number;
  /** Its process group id (equal to `pid`). */
  pgid: number;
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

/** Fields of `/proc/<pid>/stat` from the state on (field 3); `undefined` when the process is gone. */
function statFields(pid: number): string[] | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses; fields after its last `)` are plain.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/**
 * The start time of `pid` (field 22 of `/proc/<pid>/stat`: clock ticks after boot), as a string;
 * `undefined` when the process does not exist, `null` where /proc is not available.
 */
export function processStartTime(pid: number): string | null | undefined {
  if (!hasProc()) return null;
  // Field 22 is index 19 counting from field 3.
  return statFields(pid)?.[19];
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

/** Whether group `pgid` has a live member; zombies (which run nothing) do not count. */
function groupAlive(pgid: number): boolean {
  if (!signalReaches(-pgid)) return false;
  if (!hasProc()) return true;
  for (const entry of readdirSync('/proc')) {
    const first = entry.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    const fields = statFields(Number(entry));
    if (fields && Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
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
  if (
    r === null ||
    typeof r !== 'object' ||
    r.version !== 1 ||
    !posInt(r.pid) ||
    !posInt(r.pgid) ||
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

/** What the host knows of a command when its process starts. */
export interface RunningCommand {
  commandId: string;
  run: string;
  actor: string;
}

/**
 * Records a spawned command's group in `<instanceDir>/running/<pgid>.json`, atomically (a temp file
 * renamed into place, so a reader never sees half a record), and returns the function that removes
 * it once the run settled. Throws when the record cannot be written: the caller (exec's `onSpawn`)
 * then kills the group rather than run it unrecorded.
 */
export function recordRunning(
  instanceDir: string,
  info: { pid: number; pgid: number },
  command: RunningCommand,
): () => void {
  const dir = join(instanceDir, RUNNING_DIR);
  const file = join(dir, `${info.pgid}.json`);
  const temp = join(dir, `.${info.pgid}.${randomBytes(4).toString('hex')}.tmp`);
  const startTime = processStartTime(info.pid);
  const record: RunningRecord = {
    version: 1,
    pid: info.pid,
    pgid: info.pgid,
    // `undefined` would mean the leader is already gone (and reaped by us): nothing to verify.
    startTime: startTime ?? null,
    owner: { pid: process.pid, startTime: brokerStartTime() },
    commandId: command.commandId,
    run: command.run,
    actor: command.actor,
    startedAt: new Date().toISOString(),
  };
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(temp, `${JSON.stringify(record)}\n`, { mode: 0o600 });
    renameSync(temp, file);
  } catch (cause) {
    try {
      rmSync(temp, { force: true });
    } catch {
      // Nothing was written (e.g. `running` is not a directory).
    }
    throw new HostError(
      HOST_ERROR_CODES.runningRecord,
      `could not record ${command.commandId}'s process group in ${file} (${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message}); the command was killed rather than run untracked. Make ${dir} writable by the broker`,
      { cause },
    );
  }
  return () => {
    // Only our own record: after the group is gone its pgid may name another broker's command.
    try {
      const current = parseRecord(readFileSync(file, 'utf8'));
      if (current?.owner.pid === process.pid && current.startedAt === record.startedAt) rmSync(file);
    } catch {
      // Already gone.
    }
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

/**
 * Kills what a crashed broker left running on this instance: for every record in
 * `<instanceDir>/running/` whose broker is gone, the recorded group gets SIGKILL when its leader
 * still exists with the recorded start time (where /proc is absent: when `kill(-pgid, 0)` reaches
 * it, with the pid-reuse caveat of docs/host.md); then the record is deleted. A record whose leader
 * is gone, or whose pid now belongs to another process, is deleted without a signal. Each kill is
 * one audit event (`action: "host:reap"`) in `store`.
 */
export async function reapRunning(instanceDir: string, store: Store): Promise<ReapResult[]> {
  const dir = join(instanceDir, RUNNING_DIR);
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  const results: ReapResult[] = [];
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
    const record = parseRecord(text);
    if (record === undefined) {
      rmSync(file, { force: true });
      results.push({ file, outcome: 'invalid' });
      continue;
    }
    if (sameProcess(record.owner.pid, record.owner.startTime) === 'same') {
      // A live broker (this process or another on the same instance) still owns the run.
      results.push({ file, outcome: 'owner_alive', record });
      continue;
    }
    // A record written where /proc was absent has no start time: ask the group itself.
    const leader =
      record.startTime === null
        ? signalReaches(-record.pgid)
          ? 'same'
          : 'gone'
        : sameProcess(record.pid, record.startTime);
    if (leader !== 'same') {
      rmSync(file, { force: true });
      results.push({ file, outcome: leader, record });
      continue;
    }
    try {
      process.kill(-record.pgid, 'SIGKILL');
    } catch {
      // ESRCH: it ended between the check and the kill.
    }
    const groupGone = await waitGroupGone(record.pgid);
    rmSync(file, { force: true });
    results.push({ file, outcome: 'reaped', record, groupGone });
    try {
      await store.appendAudit({
        run: record.run,
        actor: REAP_ACTOR,
        job: null,
        command: record.commandId,
        action: REAP_ACTION,
        phase: 'reap',
        outcome: 'reaped',
        code: 'ok',
        reason: 'broker_crashed',
        payload: {
          pid: record.pid,
          pgid: record.pgid,
          start_time: record.startTime,
          started_at: record.startedAt,
          agent_actor: record.actor,
          owner_pid: record.owner.pid,
          verified_by: record.startTime === null ? 'kill-0' : 'proc-start-time',
          signal: 'SIGKILL',
          group_gone: groupGone,
        },
      });
    } catch (error) {
      process.stderr.write(
        `loom: could not record the reap of group ${record.pgid}: ${(error as Error).message}\n`,
      );
    }
  }
  return results;
}
