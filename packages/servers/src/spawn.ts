// Starting a stdio server's process, confined when its spec asks and this machine can: exec plans
// the sandbox (bubblewrap's argv, its seccomp program for fd 3, a pids cgroup); this file only
// spawns what the plan says, detached in a process group of its own so the whole tree can be ended.
import { type ChildProcess, spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import { type Confinement, detectSandbox, resolveExecutable } from '@harness/exec';
import { planSandbox, type SandboxLaunch } from '@harness/exec/internal';
import type { ServerState, StdioTransportSpec } from './types';

/** A started server process, how it is confined, and what to release once it is gone. */
export interface SpawnedServer {
  readonly child: ChildProcess;
  readonly confinement: ServerState['confinement'];
  /** Removes the run's cgroup and protect placeholders; call once the process has exited. */
  release(): void;
}

/** What confinement a spec gets here, before anything starts (for `state()` of an idle client). */
export function plannedConfinement(spec: StdioTransportSpec): ServerState['confinement'] {
  if (spec.sandbox === null) return { confined: false, reason: 'the server spec asks for no sandbox' };
  const detection = detectSandbox();
  return detection.available
    ? { confined: false, reason: 'not started yet' }
    : { confined: false, reason: `no sandbox can be started here (${detection.reason})` };
}

/**
 * Spawns the server of `spec`: through exec's sandbox plan when `spec.sandbox` is set and a
 * mechanism works here, else unconfined, saying why. Throws exec's error for a program not found or
 * a malformed policy (never runs such a server unconfined instead).
 */
export function spawnServer(spec: StdioTransportSpec): SpawnedServer {
  const [command, ...args] = spec.command;
  if (command === undefined) throw new Error('the server command is empty; expected an argv');
  const env = { ...spec.env };
  const file = resolveExecutable(command, env.PATH, spec.cwd);
  let launch: SandboxLaunch | undefined;
  let confinement: Confinement | { confined: false; reason: string };
  if (spec.sandbox === null) {
    confinement = { confined: false, reason: 'the server spec asks for no sandbox' };
  } else {
    const detection = detectSandbox();
    if (detection.available) {
      launch = planSandbox(spec.sandbox, { file, args, cwd: spec.cwd, pwd: env.PWD }, detection);
      confinement = launch.confinement;
    } else {
      confinement = { confined: false, reason: `no sandbox can be started here (${detection.reason})` };
    }
  }
  const stdio: ('pipe' | 'ignore')[] = ['pipe', 'pipe', 'pipe'];
  if (launch?.seccomp !== undefined) stdio.push('pipe');
  const child = spawn(launch?.file ?? file, launch?.args ?? args, {
    argv0: launch === undefined ? command : launch.file,
    env,
    cwd: spec.cwd,
    detached: true,
    stdio,
    windowsHide: true,
  });
  // bubblewrap reads its seccomp program from fd 3 before it starts the server.
  const fd3 = child.stdio[3] as Writable | null | undefined;
  if (launch?.seccomp !== undefined && fd3) fd3.on('error', () => {}).end(launch.seccomp);
  let released = false;
  return {
    child,
    confinement,
    release() {
      if (released) return;
      released = true;
      launch?.cgroup?.remove();
      launch?.protect?.release();
    },
  };
}

/** Sends `signal` to the process group `pgid` leads; a group already gone is not an error. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}
