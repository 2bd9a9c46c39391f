// A child process run to completion with its output collected: the agent CLIs, and the `harness` and
// `loom` bins a session runs beside them.
import { execFile } from 'node:child_process';

/** A finished child process: its exit code (-1 when it was killed or could not start) and its output. */
export interface Exec {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `file` with `args` to completion with exactly `env`, stdin closed (a CLI that appends piped
 * stdin to its prompt reads nothing), killed after `timeoutMs`.
 */
export function execToEnd(
  file: string,
  args: readonly string[],
  options: { cwd?: string | undefined; env: Record<string, string>; timeoutMs: number },
): Promise<Exec> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      [...args],
      { cwd: options.cwd, env: options.env, timeout: options.timeoutMs, maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
    child.stdin?.end();
  });
}

/** Runs the Node script `bin` (the `harness` or `loom` bin) with a HOME of its own and no colour. */
export function runNode(
  bin: string,
  args: readonly string[],
  options: { home: string; cwd?: string },
): Promise<Exec> {
  const env = { PATH: process.env.PATH ?? '', HOME: options.home, NO_COLOR: '1' };
  return execToEnd(process.execPath, [bin, ...args], { cwd: options.cwd, env, timeoutMs: 60_000 });
}
