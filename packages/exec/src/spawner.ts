// A small long-lived process that starts programs for a large one. `fork()` copies the calling
// process's page tables and marks every page it has written copy-on-write, so each later write to
// one of them faults; in a broker of ~40 MiB that was a third of each call's CPU, and the event loop
// waited on every fork until the child's exec. Started from a process of a few MiB instead, the fork
// is cheap and the caller's loop never waits on it. The caller keeps everything else: the spawner
// hands back the child's pipes themselves (file descriptors over its IPC channel), so output never
// passes through it, and bounds, kills and group checks stay with `run` (docs/exec.md, "Spawner").
import { type ChildProcess, spawn as spawnChild } from 'node:child_process';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import type { ProgramIdentity } from './program';

/** What `run` needs of a started child: the shape of Node's `ChildProcess`, whoever started it. */
export interface StartedChild extends EventEmitter {
  readonly pid?: number | undefined;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  readonly stdin: Writable | null;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
}

/** One program for the spawner to start, as `child_process.spawn` takes it (always detached). */
export interface StartRequest {
  readonly file: string;
  readonly args: readonly string[];
  readonly argv0: string;
  readonly env: Record<string, string>;
  readonly cwd: string;
  /** Whether the child gets a stdin pipe (else it has none). */
  readonly stdin: boolean;
  /**
   * Bytes (base64) the child reads on file descriptor 3, through a pipe written and closed as soon
   * as it starts (bubblewrap's seccomp program); absent: the child has no descriptor 3.
   */
  readonly fd3?: string;
  /**
   * The identity the file at `check.file` (the program, also when `file` is the confining
   * mechanism) must still have right before the spawn; else the request fails with code
   * {@link PROGRAM_CHANGED} and nothing starts. Absent: no check (the run resolved it itself).
   */
  readonly check?: { readonly file: string } & ProgramIdentity;
}

/** The error code of a start refused because the program is no longer the file resolved. */
export const PROGRAM_CHANGED = 'EPROGRAMCHANGED';

/**
 * A spawner process, started at its first use. Pass it to `run` as `spawner`; `close` it when no
 * run needs it any more.
 */
export interface Spawner {
  /**
   * Stops the spawner process. Runs in flight keep their pipes, their group kills and their bounds;
   * only their exit status is lost (they end as if killed with SIGKILL, which they then are).
   */
  close(): Promise<void>;
}

// Messages on the channel. To the spawner: a StartRequest with its id. From it: `ready` once, then
// per request either `error`, or `pid` with the stdout handle, the stderr handle, the stdin handle
// when asked for, and later `exit`.
type ToSpawner = StartRequest & { id: number };
type FromSpawner =
  | { ready: true }
  | { id: number; error: { code?: string; message: string } }
  | { id: number; pid: number; stream: 'stdout' }
  | { id: number; stream: 'stderr' | 'stdin' }
  | { id: number; exit: { code: number | null; signal: NodeJS.Signals | null } };

/**
 * The spawner's whole program, run as `node -e`. It is plain JavaScript in a string rather than a
 * function's source: a bundler rewrites a function's body (its `require`, its names), and this
 * program runs outside any bundle. Per request it spawns the program detached, stops reading its
 * pipes before the loop turns (so no byte, nor the end of file, is taken here while the handles wait
 * their turn on the channel), sends the pid with the stdout handle, then the stderr (and stdin)
 * handle, and later the exit. When the caller's channel closes, it exits without a word (a message it
 * could no longer send included): what it started lives on,
 * as it would had the caller spawned it (the caller's next start reaps what it recorded).
 */
const SPAWNER_SOURCE = `/* @harness/exec spawner */
'use strict';
const { spawn } = require('node:child_process');
const { statSync } = require('node:fs');
// The program's identity as the caller resolved and hashed it, looked at again right before the spawn.
const unchanged = (c) => {
  let s;
  try { s = statSync(c.file, { bigint: true }); } catch { return false; }
  return String(s.dev) === c.dev && String(s.ino) === c.ino && String(s.size) === c.size &&
    String(s.mtimeNs) === c.mtimeNs && String(s.ctimeNs) === c.ctimeNs;
};
// A send after the caller has gone (its channel closed first) fails quietly: the spawner is about to
// exit on 'disconnect', and an error event here would print a stack on the caller's stderr.
const send = (message, handle) => process.send(message, handle, () => {});
process.on('message', (m) => {
  let child;
  if (m.check !== undefined && !unchanged(m.check)) {
    send({ id: m.id, error: { code: 'EPROGRAMCHANGED', message: 'the program changed since it was resolved' } });
    return;
  }
  try {
    const stdio = [m.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'];
    if (m.fd3 !== undefined) stdio.push('pipe');
    child = spawn(m.file, m.args, {
      argv0: m.argv0, env: m.env, cwd: m.cwd, detached: true, windowsHide: true, stdio,
    });
  } catch (e) {
    send({ id: m.id, error: { code: e.code, message: e.message } });
    return;
  }
  child.on('error', (e) => {
    if (child.pid === undefined) send({ id: m.id, error: { code: e.code, message: e.message } });
  });
  if (child.pid === undefined) return;
  if (m.fd3 !== undefined) child.stdio[3].on('error', () => {}).end(Buffer.from(m.fd3, 'base64'));
  for (const stream of [child.stdout, child.stderr]) stream._handle.readStop();
  send({ id: m.id, pid: child.pid, stream: 'stdout' }, child.stdout);
  send({ id: m.id, stream: 'stderr' }, child.stderr);
  if (child.stdin) send({ id: m.id, stream: 'stdin' }, child.stdin);
  child.once('exit', (code, signal) => send({ id: m.id, exit: { code, signal } }));
});
process.on('disconnect', () => process.exit(0));
send({ ready: true });
`;

/** A child started by the spawner: its pipes arrive over the channel, its exit as a message. */
class RemoteChild extends EventEmitter implements StartedChild {
  pid: number | undefined;
  stdout: Socket | null = null;
  stderr: Socket | null = null;
  stdin: Socket | null = null;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  private exited = false;
  private openPipes = 0;
  private closed = false;

  attach(stream: 'stdout' | 'stderr' | 'stdin', socket: Socket): void {
    this[stream] = socket;
    if (stream === 'stdin') return;
    this.openPipes += 1;
    socket.once('close', () => {
      this.openPipes -= 1;
      this.closeIfDone();
    });
  }

  exit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exited) return;
    this.exited = true;
    this.exitCode = code;
    this.signalCode = signal;
    this.emit('exit', code, signal);
    this.closeIfDone();
  }

  private closeIfDone(): void {
    if (this.closed || !this.exited || this.openPipes > 0) return;
    this.closed = true;
    this.emit('close', this.exitCode, this.signalCode);
  }
}

/**
 * The spawner's Node flags. Each request allocates a little and keeps almost nothing, so under a
 * steady stream of calls V8 would grow its young generation to two 16 MiB semi-spaces (Node 20) and
 * hold them: ~30 MiB of resident memory for a heap of a few MiB. One-MiB semi-spaces keep it small
 * and flat; the scavenges they cost are of a few live objects each.
 */
const SPAWNER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1'];

// How many spawner starts may fail in a row (no `ready`) before runs stop asking for one.
const MAX_FAILED_BOOTS = 3;

interface Pending {
  child: RemoteChild;
  stdin: boolean;
  resolve(child: StartedChild): void;
  reject(error: NodeJS.ErrnoException): void;
  started: boolean;
}

class SpawnerProcess implements Spawner {
  private process: ChildProcess | undefined;
  private ready = false;
  // Starts that ended before the spawner said it was ready; past a few, runs spawn directly for good.
  private failedBoots = 0;
  private next = 1;
  private readonly pending = new Map<number, Pending>();

  /**
   * Starts `request` through the spawner; `undefined` while it is not up yet (the first call starts
   * it), so the caller spawns that one itself rather than wait for a Node start.
   */
  start(request: StartRequest): Promise<StartedChild> | undefined {
    if (!this.ready || this.process === undefined) {
      if (this.failedBoots < MAX_FAILED_BOOTS) this.boot();
      return undefined;
    }
    const helper = this.process;
    const id = this.next++;
    return new Promise<StartedChild>((resolve, reject) => {
      this.pending.set(id, {
        child: new RemoteChild(),
        stdin: request.stdin,
        resolve,
        reject,
        started: false,
      });
      this.refChannel(helper);
      try {
        helper.send({ ...request, id } satisfies ToSpawner);
      } catch {
        // The channel closed under us: what is pending fails, this one included.
        this.lost(helper);
      }
    });
  }

  async close(): Promise<void> {
    const helper = this.process;
    this.process = undefined;
    this.ready = false;
    if (helper === undefined || helper.exitCode !== null || helper.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => helper.once('exit', () => resolve()));
    // Held until it is gone, so the caller's loop does not end first.
    helper.ref();
    if (helper.connected) helper.disconnect();
    await gone;
  }

  private boot(): void {
    if (this.process !== undefined) return;
    const helper = spawnChild(process.execPath, [...SPAWNER_NODE_FLAGS, '-e', SPAWNER_SOURCE], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      env: {},
      // Its own group: a caller's Ctrl-C (SIGINT to the terminal's group) is for the caller, and
      // the spawner goes when the caller's channel closes.
      detached: true,
    });
    this.process = helper;
    helper.unref();
    this.unrefChannel(helper);
    let wasReady = false;
    const gone = () => {
      if (!wasReady) this.failedBoots += 1;
      this.lost(helper);
    };
    helper.on('error', gone);
    helper.once('exit', gone);
    helper.on('message', (message: FromSpawner, handle?: Socket) => {
      if ('ready' in message) {
        wasReady = true;
        this.failedBoots = 0;
        if (this.process === helper) this.ready = true;
        return;
      }
      this.onReply(message, handle);
    });
  }

  private onReply(message: Exclude<FromSpawner, { ready: true }>, handle: Socket | undefined): void {
    const p = this.pending.get(message.id);
    if (p === undefined) return;
    if ('error' in message) {
      this.settle(message.id);
      const error = new Error(message.error.message) as NodeJS.ErrnoException;
      if (message.error.code !== undefined) error.code = message.error.code;
      p.reject(error);
      return;
    }
    if ('exit' in message) {
      this.settle(message.id);
      p.child.exit(message.exit.code, message.exit.signal);
      return;
    }
    if ('pid' in message) p.child.pid = message.pid;
    if (handle !== undefined) p.child.attach(message.stream, handle);
    const complete =
      p.child.stdout !== null && p.child.stderr !== null && (!p.stdin || p.child.stdin !== null);
    if (complete && !p.started) {
      p.started = true;
      p.resolve(p.child);
    }
  }

  private settle(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0 && this.process !== undefined) this.unrefChannel(this.process);
  }

  /**
   * The spawner exited (or could not start). A request it had not answered fails; a child it had
   * started has lost its exit status, so its group is killed and it ends as killed by SIGKILL.
   */
  private lost(helper: ChildProcess): void {
    if (this.process === helper) {
      this.process = undefined;
      this.ready = false;
    }
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      if (!p.started || p.child.pid === undefined) {
        const error = new Error(
          'the spawner process exited before it started the program',
        ) as NodeJS.ErrnoException;
        error.code = 'ESPAWNER';
        p.reject(error);
        continue;
      }
      try {
        process.kill(-p.child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      p.child.exit(null, 'SIGKILL');
    }
  }

  // The channel keeps this process alive only while a request waits on it.
  private refChannel(helper: ChildProcess): void {
    (helper.channel as { ref?: () => void } | undefined)?.ref?.();
  }

  private unrefChannel(helper: ChildProcess): void {
    (helper.channel as { unref?: () => void } | undefined)?.unref?.();
  }
}

/**
 * A spawner: a small Node process, started at its first use, that starts the programs of the runs
 * given it (`run({ …, spawner })`). Worth it in a large, long-lived process that runs many short
 * programs, such as a broker; see docs/exec.md, "Spawner". Until it is up, runs spawn directly.
 */
export function createSpawner(): Spawner {
  return new SpawnerProcess();
}

/**
 * Starts `request` through `spawner`; `undefined` when the caller should spawn it itself (the
 * spawner is not up yet, or `spawner` is not one {@link createSpawner} made).
 */
export function startThrough(spawner: Spawner, request: StartRequest): Promise<StartedChild> | undefined {
  return spawner instanceof SpawnerProcess ? spawner.start(request) : undefined;
}
