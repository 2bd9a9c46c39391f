// What a call would run, shown before it runs: for a person deciding an approval.
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { type ResolvedProgram, resolveProgram, type SandboxPolicy } from '@harness/exec';
import { redact, redactDeep } from './credentials';
import { renderDisplay } from './display';
import type { PacksIssue } from './errors';
import { commandPath, findPackCommand, renderCallArgv } from './plan';
import type { CredentialSource, PackSet } from './types';

/** A call as {@link previewPackCall} shows it; every credential value is `[redacted]` in it. */
export interface PackCallPreview {
  /** The argument values as given. */
  readonly args: Readonly<Record<string, unknown>>;
  /**
   * The command's display line with the call's values (escaped, cut; credentials replaced), as
   * `renderDisplay` makes it; `null` when the command declares no `display` or is unknown.
   */
  readonly display: string | null;
  /** The argv the call would run, as {@link runPackCommand} renders it; `null` when it would not render. */
  readonly argv: readonly string[] | null;
  /** Why `argv` is `null` (unknown command, bad arguments, refused render); empty otherwise. */
  readonly issues: readonly PacksIssue[];
  /** Everything that decides what the call would do; `null` for an unknown command. */
  readonly plan: CallPlan | null;
  /**
   * The program `plan.executable` names, resolved once with its file's identity: pass it to
   * {@link runPackCommand} as `program` so that the file the plan hashed is the file that starts.
   * `null` when it resolves to nothing.
   */
  readonly program: ResolvedProgram | null;
}

/** One `plan_inputs` file as a plan covers it: its path relative to the pack's cwd and its bytes' hash. */
export interface PlanInput {
  readonly path: string;
  /** SHA-256 (hex) of its bytes; `absent` when nothing is there, `not_a_file` for a directory or the like. */
  readonly sha256: string;
}

/**
 * What a call would run, in full: what an approval is bound to. Two calls with equal plans run the
 * same program the same way; any change (the template edited, the program on PATH replaced by
 * another, an env variable added, the sandbox widened) is a different plan.
 */
export interface CallPlan {
  readonly command: string;
  /** The rendered argv, credentials replaced; `null` when it would not render. */
  readonly argv: readonly string[] | null;
  /** The absolute path `argv[0]` resolves to where the call runs; `null` when it resolves to nothing. */
  readonly executable: string | null;
  /** SHA-256 (hex) of the bytes of the file at `executable`: a program rewritten in place is another plan. */
  readonly executableSha256: string | null;
  /** The names of the variables the pack sets, sorted (never their values). */
  readonly env: readonly string[];
  /**
   * The variables set from the person's own configuration, with their values (the git author and
   * committer, `Pack.personEnv`): an approval binds who a commit is made as. Absent: none.
   */
  readonly personEnv?: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** The real path of `cwd` (every symlink resolved): a symlinked cwd repointed is another plan. `null`: it does not exist. */
  readonly cwdReal: string | null;
  /** The command's `plan_inputs`, in declared order, each with its bytes' hash (read under `cwdReal`). */
  readonly inputs: readonly PlanInput[];
  /** The confinement it runs under; `null`: unconfined. */
  readonly sandbox: SandboxPolicy | null;
  /** The pack, and the standard pack it was declared from (its template is in `argv`). */
  readonly pack: string;
}

/**
 * Renders a call's argv without running it, with the arguments it came from, and replaces every
 * value of the pack's credentials in both with `[redacted]` (a value the caller gave that equals a
 * credential is never shown or stored). Governance is not checked.
 */
export function previewPackCall(
  workspace: PackSet,
  commandId: string,
  args: Readonly<Record<string, unknown>>,
  options: { readonly credentials?: CredentialSource } = {},
): PackCallPreview {
  const found = findPackCommand(workspace, commandId);
  const secrets = (found.ok ? found.pack.credentials : [])
    .map((n) => options.credentials?.get(n))
    .filter((v): v is string => typeof v === 'string' && v !== '');
  const shownArgs = redactDeep({ ...args }, secrets);
  if (!found.ok)
    return { args: shownArgs, display: null, argv: null, issues: found.issues, plan: null, program: null };
  const { pack, command } = found;
  const display = renderDisplay(command, shownArgs);
  const rendered = renderCallArgv(command, args, pack.cwd, (m) => redact(m, secrets));
  const argv = rendered.ok ? rendered.argv.map((a) => redact(a, secrets)) : null;
  const program = programOf(command.argv[0], commandPath(pack), pack.cwd);
  const cwdReal = realPathOf(pack.cwd);
  const plan: CallPlan = {
    command: commandId,
    argv,
    executable: program?.file ?? null,
    executableSha256: program?.sha256 ?? null,
    env: Object.keys({ ...pack.env, ...pack.personEnv }).sort(),
    ...(pack.personEnv === undefined ? {} : { personEnv: { ...pack.personEnv } }),
    cwd: pack.cwd,
    cwdReal,
    inputs: command.planInputs.map((path) => planInput(cwdReal ?? pack.cwd, path)),
    sandbox: command.sandbox,
    pack: pack.standard === undefined ? pack.id : `${pack.id} (standard ${pack.standard})`,
  };
  if (!rendered.ok)
    return {
      args: shownArgs,
      display,
      argv: null,
      issues: redactDeep(rendered.issues, secrets),
      plan,
      program,
    };
  return { args: shownArgs, display, argv, issues: [], plan, program };
}

/** Where `program` resolves on `path` from `cwd`, hashed; `null` when it does not resolve to a readable executable. */
function programOf(
  program: string | undefined,
  path: string | undefined,
  cwd: string,
): ResolvedProgram | null {
  if (program === undefined) return null;
  try {
    return resolveProgram(program, path, cwd);
  } catch {
    return null;
  }
}

function realPathOf(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** The hash of one `plan_inputs` file under `dir`: its bytes', or `absent` / `not_a_file`. */
function planInput(dir: string, path: string): PlanInput {
  try {
    return {
      path,
      sha256: createHash('sha256')
        .update(readFileSync(join(dir, path)))
        .digest('hex'),
    };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { path, sha256: code === 'ENOENT' || code === 'ENOTDIR' ? 'absent' : 'not_a_file' };
  }
}
