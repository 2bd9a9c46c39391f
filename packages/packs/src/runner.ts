import {
  type Confinement,
  ExecError,
  ExecErrorCode,
  type ResolvedProgram,
  type RunOutcome,
  run,
  type Spawner,
  type SpawnInfo,
} from '@harness/exec';
import { parse as parseTemplate, render, TmplError } from '@harness/tmpl';
import { redact, redactDeep } from './credentials';
import { PacksErrorCode as Code, type PacksIssue, packsIssue } from './errors';
import type { ExitFailure } from './exit-failures';
import { commandPath, findPackCommand, renderCallArgv } from './plan';
import type { CredentialSource, Pack, PackCommand, PackSet } from './types';

/**
 * How one spawn of a pack command ended (the `status` of a `ran` answer, `@harness/protocol`'s
 * `SPAWN_STATUSES`), most specific first: `ok`; an {@link ExitFailure} (`tests_failed`: an exit code
 * the command's `failure_exit_codes` names); `exit_nonzero` (any other exit code not in
 * `ok_exit_codes`); `signaled` (killed by a signal it did
 * not get from us); `escaped` (a process it started left the process group, e.g. with `setsid`, and
 * held the output open: reading stopped at the bound and that process may still run); `timed_out`;
 * `output_exceeded` (stdout + stderr passed `max_output`, and the
 * command was killed: output is never silently truncated, CP-48); `cancelled` (the caller's signal);
 * `parse_failed` (exit 0 but `parse: json` output was not JSON; the raw stdout is kept). The words a
 * bound or a signal ends a run with are `@harness/exec`'s {@link RunOutcome}, spelled once there.
 */
export type SpawnStatus =
  | 'ok'
  | ExitFailure
  | 'exit_nonzero'
  | 'escaped'
  | 'parse_failed'
  | Exclude<RunOutcome, 'exited'>;

/** The bounded outcome of one pack-command run. Credential values are already `[redacted]` everywhere in it. */
export interface PackRunOutcome {
  readonly commandId: string;
  /** `true` iff `status` is `ok`. */
  readonly ok: boolean;
  readonly status: SpawnStatus;
  /** One line for people and the agent: what happened, with stderr's first line on failure (CP-49). */
  readonly message: string;
  /** The argv that ran (rendered from the frozen template). */
  readonly argv: readonly string[];
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  /**
   * Parsed stdout when `ok`: `text` → the string; `json` → the value; `lines` → the lines (a final
   * newline does not make an empty last line). Absent otherwise.
   */
  readonly output?: unknown;
  /** Why `parse: json` failed (`parse_failed`). */
  readonly parseError?: string;
  readonly timedOut: boolean;
  readonly outputExceeded: boolean;
  readonly cancelled: boolean;
  readonly durationMs: number;
  /** Whether and how the process was confined (`@harness/exec`'s report). */
  readonly confinement: Confinement;
}

/** What {@link runPackCommand} returns: `ok: true` when the process ran (whatever its exit), else why nothing ran. */
export type PackRunResult =
  | { readonly ok: true; readonly outcome: PackRunOutcome }
  | { readonly ok: false; readonly issues: readonly PacksIssue[] };

/** Options of {@link runPackCommand}. */
export interface RunPackOptions {
  /** Where `{{credential.NAME}}` values in the pack's `env` come from (configured by the host). */
  readonly credentials?: CredentialSource;
  /** Aborting it kills the process group; the outcome is `cancelled`. */
  readonly signal?: AbortSignal;
  /**
   * The child's `PATH` (the only variable given besides the pack's `env`; a `PATH` in the pack's
   * `env` wins). Default: this process's `PATH`. Nothing else of the parent environment is passed.
   */
  readonly path?: string;
  /** Delay between SIGTERM and SIGKILL when a bound fires. Default: `@harness/exec`'s (2 s). */
  readonly killGraceMs?: number;
  /**
   * Called synchronously once the command's process exists, with its pid and process group id
   * (`@harness/exec`'s `onSpawn`): the host records the group here so a crashed broker's commands
   * can be killed at the next start. If it throws, the group is killed and `runPackCommand` rejects
   * with that error.
   */
  readonly onSpawn?: (info: SpawnInfo) => void;
  /**
   * Told the bytes of stdout + stderr the command has written so far, after each chunk
   * (`@harness/exec`'s `onOutputBytes`): a host's progress reports. Never told any output itself.
   */
  readonly onOutputBytes?: (seen: number) => void;
  /**
   * Start the command through this spawner (`@harness/exec`'s `createSpawner`): what a long-lived
   * host that runs many commands gives, so that its own process never forks (docs/exec.md, "Spawner").
   */
  readonly spawner?: Spawner;
  /**
   * The program the call's plan resolved and hashed ({@link previewPackCall}'s `program`): the run
   * starts exactly that file, with no PATH search of its own, and refuses (`spawn_failed`, reason
   * `program_changed`) when the file there was replaced or rewritten since. `null`: the plan found
   * no program, so nothing is started (a program that appeared since was never planned). Absent: the
   * run resolves `argv[0]` itself, once.
   */
  readonly program?: ResolvedProgram | null;
}

function parseOutput(
  kind: PackCommand['output'],
  stdout: string,
  sortLines: boolean,
): { output: unknown } | { error: string } {
  if (kind === 'json') {
    try {
      return { output: JSON.parse(stdout) };
    } catch (error) {
      return { error: `stdout is not valid JSON (${(error as Error).message}); the raw output is in stdout` };
    }
  }
  if (kind === 'lines') {
    const lines = stdout.split(/\r?\n/);
    if (lines.at(-1) === '') lines.pop();
    // In JavaScript string order (UTF-16 code units): the same order on every machine and file system.
    if (sortLines) lines.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return { output: lines };
  }
  return { output: stdout };
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

/**
 * Runs one pack command: validates `args` against its inputs, renders the frozen argv with
 * `@harness/tmpl` (values only, one element per element, flag injection refused), builds the
 * environment from the pack's `env` alone plus `PATH` and `PWD` (credentials from `options.credentials`; no
 * `${VAR}` expansion), and runs it through `@harness/exec` (never a shell; the pack's timeout and
 * output ceiling; the process group killed when a bound fires). Credential values in stdout, stderr
 * and messages are replaced with `[redacted]`.
 *
 * Governance is not checked here: call {@link decide} first. Returns `ok: false` with issues when
 * nothing ran (unknown command, bad arguments, refused render, missing credential, missing
 * executable); otherwise the outcome, whatever the exit.
 */
export async function runPackCommand(
  workspace: PackSet,
  commandId: string,
  args: unknown,
  options: RunPackOptions = {},
): Promise<PackRunResult> {
  const found = findPackCommand(workspace, commandId);
  if (!found.ok) return found;
  const { command, pack } = found;

  const secrets = configuredSecrets(pack, options.credentials);
  // Arguments and render are checked before credentials: the caller's mistake is the one to report.
  const rendered = renderCallArgv(command, args, pack.cwd, (m) => redact(m, secrets));
  if (!rendered.ok) return rendered;
  const { argv } = rendered;

  const env = commandEnv(commandId, pack, options, secrets);
  if (!env.ok) return env;

  let result: ExecResult;
  try {
    if (options.program === null) {
      throw new ExecError(
        ExecErrorCode.executable_not_found,
        `executable ${JSON.stringify(argv[0])} resolved to nothing when the call was planned`,
      );
    }
    result = await run(execOptions(argv, env.env, pack, command, options));
  } catch (error) {
    if (!(error instanceof ExecError)) throw error;
    return startFailed(error, commandId, argv, pack.cwd, secrets);
  }
  return { ok: true, outcome: packRunOutcome(commandId, command, argv, result, secrets) };
}

type ExecResult = Awaited<ReturnType<typeof run>>;

/** The values the source has of the credentials `pack` may use, so that even a refused render's message hides them. */
function configuredSecrets(pack: Pack, credentials: CredentialSource | undefined): string[] {
  const secrets: string[] = [];
  for (const name of pack.credentials) {
    const v = credentials?.get(name);
    if (typeof v === 'string' && v !== '') secrets.push(v);
  }
  return secrets;
}

/**
 * The child's environment: the pack's `env` rendered with credentials from `options.credentials`
 * (each value it renders is appended to `secrets`), then the pack's `personEnv`, then `PATH` and `PWD`. Not ok, and nothing runs,
 * when a credential it names has no value.
 */
function commandEnv(
  commandId: string,
  pack: Pack,
  options: RunPackOptions,
  secrets: string[],
):
  | { readonly ok: true; readonly env: Record<string, string> }
  | { readonly ok: false; readonly issues: PacksIssue[] } {
  const env: Record<string, string> = {};
  const missing: string[] = [];
  const credentialGetter = {
    get(path: string): unknown {
      const name = path.slice('credential.'.length);
      const value = options.credentials?.get(name);
      if (typeof value !== 'string' || value === '') {
        missing.push(name);
        return undefined;
      }
      secrets.push(value);
      return value;
    },
  };
  for (const [key, template] of Object.entries(pack.env)) {
    const t = parseTemplate(template);
    if (!t.ok) continue; // checked at load
    try {
      env[key] = render(t.template, credentialGetter);
    } catch (error) {
      if (!(error instanceof TmplError)) throw error;
    }
  }
  if (missing.length > 0) return credentialUnavailable(commandId, missing);
  // Literal values from the person's own configuration (the git author), never templates.
  Object.assign(env, pack.personEnv);
  env.PATH ??= commandPath(pack, options.path);
  // PWD names the working directory, as a shell would set it; confined or not, the program sees
  // the same environment (bubblewrap sets PWD itself, docs/exec.md).
  env.PWD ??= pack.cwd;
  return { ok: true, env };
}

function credentialUnavailable(
  commandId: string,
  missing: readonly string[],
): { readonly ok: false; readonly issues: PacksIssue[] } {
  const credentials = [...new Set(missing)];
  return {
    ok: false,
    issues: [
      packsIssue(
        Code.credential_unavailable,
        `${commandId}: credential ${credentials.map((m) => `"${m}"`).join(', ')} has no value in the credential source; nothing ran (a credential is never replaced by an empty string)`,
        [],
        { command: commandId, credentials },
      ),
    ],
  };
}

/** The bounded run of `argv`: the pack's cwd, the command's timeout, ceiling and sandbox, the caller's hooks. */
function execOptions(
  argv: readonly string[],
  env: Record<string, string>,
  pack: Pack,
  command: PackCommand,
  options: RunPackOptions,
): Parameters<typeof run>[0] {
  return {
    argv,
    env,
    cwd: pack.cwd,
    timeoutMs: command.timeoutMs,
    maxOutputBytes: command.maxOutputBytes,
    onExceed: 'fail',
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
    ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
    ...(options.onOutputBytes ? { onOutputBytes: options.onOutputBytes } : {}),
    ...(options.spawner ? { spawner: options.spawner } : {}),
    ...(options.program ? { program: options.program } : {}),
    ...(command.sandbox === null ? {} : { sandbox: command.sandbox }),
  };
}

/** Why nothing ran when `@harness/exec` refused to start `argv`, told in terms of the pack. */
function startFailed(
  error: ExecError,
  commandId: string,
  argv: readonly string[],
  cwd: string,
  secrets: readonly string[],
): PackRunResult {
  const exe = argv[0] ?? '';
  const message =
    error.code === ExecErrorCode.executable_not_found || error.code === ExecErrorCode.no_path
      ? `${commandId}: executable "${exe}" was not found on PATH; install it or fix the pack's argv`
      : error.code === ExecErrorCode.cwd_not_found
        ? `${commandId}: working directory ${cwd} does not exist; fix the pack's cwd`
        : error.code === ExecErrorCode.program_changed
          ? `${commandId}: the program "${exe}" is no longer the file its plan hashed (replaced or rewritten since); nothing ran, and the identical call plans anew`
          : `${commandId}: could not start "${exe}" (${error.code}): ${error.message}`;
  return {
    ok: false,
    issues: [
      packsIssue(Code.spawn_failed, redact(message, secrets), [], {
        command: commandId,
        executable: redact(exe, secrets),
        reason: error.code,
      }),
    ],
  };
}

/** The outcome of a command that ran, redacted: its status and message and, when ok, its parsed output. */
function packRunOutcome(
  commandId: string,
  command: PackCommand,
  argv: readonly string[],
  result: ExecResult,
  secrets: readonly string[],
): PackRunOutcome {
  const truncated = result.outputExceeded;
  const stdout = redact(result.stdout, secrets, truncated);
  const stderr = redact(result.stderr, secrets, truncated);
  const shownArgv = argv.map((a) => redact(a, secrets));
  const base = {
    commandId,
    argv: shownArgv,
    exitCode: result.exitCode,
    signal: result.signal,
    stdout,
    stderr,
    timedOut: result.timedOut,
    outputExceeded: result.outputExceeded,
    cancelled: result.cancelled,
    durationMs: Math.round(result.durationMs),
    confinement: result.confinement,
  };
  const failure = runFailure(commandId, command, result, stderr);
  if (failure !== undefined) return { ...base, ok: false, ...failure };
  const parsed = parseOutput(command.output, stdout, command.sortLines);
  // A JSON string may spell a secret with escapes (`\u0074ok…`, `\/`) that the text sweep above
  // cannot see; the parsed value is swept again.
  if ('output' in parsed && command.output === 'json') parsed.output = redactDeep(parsed.output, secrets);
  if ('error' in parsed) {
    return {
      ...base,
      ok: false,
      status: 'parse_failed',
      parseError: parsed.error,
      message: `${commandId}: ${parsed.error}`,
    };
  }
  return {
    ...base,
    ok: true,
    status: 'ok',
    output: parsed.output,
    message: `${commandId} exited with code ${result.exitCode}`,
  };
}

function secs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/**
 * How a run that did not end well ended, most specific first (see {@link SpawnStatus}), with its
 * message; `undefined` when it exited with one of the command's ok codes. An exit code the command
 * names in `failure_exit_codes` ends it with that name.
 */
function runFailure(
  commandId: string,
  command: PackCommand,
  result: ExecResult,
  stderr: string,
): { readonly status: SpawnStatus; readonly message: string } | undefined {
  if (result.escaped) {
    return {
      status: 'escaped',
      message: `${commandId}: a process it started left its process group and kept the output open; reading stopped ${result.timedOut ? `at the timeout of ${secs(command.timeoutMs)}` : 'after the command exited'} (that process may still be running)`,
    };
  }
  if (result.timedOut) {
    return {
      status: 'timed_out',
      message: `${commandId} ran past its timeout of ${secs(command.timeoutMs)} and was killed`,
    };
  }
  if (result.outputExceeded) {
    return {
      status: 'output_exceeded',
      message: `${commandId} wrote more than ${command.maxOutputBytes} bytes of output (the pack's max_output) and was killed`,
    };
  }
  if (result.cancelled) return { status: 'cancelled', message: `${commandId} was cancelled` };
  if (result.exitCode === null) {
    return { status: 'signaled', message: `${commandId} was killed by ${result.signal ?? 'a signal'}` };
  }
  const failure = command.failureExitCodes[result.exitCode];
  if (failure !== undefined) {
    // The command ran and answered; its report is its output, kept whole in stdout and stderr.
    return {
      status: failure,
      message: `${commandId} exited with code ${result.exitCode}: ${failure.split('_').join(' ')}`,
    };
  }
  if (!command.okExitCodes.includes(result.exitCode)) {
    const err = firstLine(stderr);
    return {
      status: 'exit_nonzero',
      message: `${commandId} exited with code ${result.exitCode}${err ? `: ${err}` : ' (no stderr)'}`,
    };
  }
  return undefined;
}
