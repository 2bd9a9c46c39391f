// What a call would run, shown before it runs: for a person deciding an approval.
import { resolveExecutable, type SandboxPolicy } from '@harness/exec';
import { redact, redactDeep } from './credentials';
import type { PacksIssue } from './errors';
import { findPackCommand, renderCallArgv } from './plan';
import type { CredentialSource, Workspace } from './types';

/** A call as {@link previewPackCall} shows it; every credential value is `[redacted]` in it. */
export interface PackCallPreview {
  /** The argument values as given. */
  readonly args: Readonly<Record<string, unknown>>;
  /** The argv the call would run, as {@link runPackCommand} renders it; `null` when it would not render. */
  readonly argv: readonly string[] | null;
  /** Why `argv` is `null` (unknown command, bad arguments, refused render); empty otherwise. */
  readonly issues: readonly PacksIssue[];
  /** Everything that decides what the call would do; `null` for an unknown command. */
  readonly plan: CallPlan | null;
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
  /** The names of the variables the pack sets, sorted (never their values). */
  readonly env: readonly string[];
  readonly cwd: string;
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
  workspace: Workspace,
  commandId: string,
  args: Readonly<Record<string, unknown>>,
  options: { readonly credentials?: CredentialSource } = {},
): PackCallPreview {
  const found = findPackCommand(workspace, commandId);
  const secrets = (found.ok ? found.pack.credentials : [])
    .map((n) => options.credentials?.get(n))
    .filter((v): v is string => typeof v === 'string' && v !== '');
  const shownArgs = redactDeep({ ...args }, secrets);
  if (!found.ok) return { args: shownArgs, argv: null, issues: found.issues, plan: null };
  const { pack, command } = found;
  const rendered = renderCallArgv(command, args, pack.cwd, (m) => redact(m, secrets));
  const argv = rendered.ok ? rendered.argv.map((a) => redact(a, secrets)) : null;
  const plan: CallPlan = {
    command: commandId,
    argv,
    executable: executableOf(command.argv[0], pack.env.PATH ?? process.env.PATH, pack.cwd),
    env: Object.keys(pack.env).sort(),
    cwd: pack.cwd,
    sandbox: command.sandbox,
    pack: pack.standard === undefined ? pack.id : `${pack.id} (standard ${pack.standard})`,
  };
  if (!rendered.ok)
    return { args: shownArgs, argv: null, issues: redactDeep(rendered.issues, secrets), plan };
  return { args: shownArgs, argv, issues: [], plan };
}

/** Where `program` resolves on `path` from `cwd`; `null` when it does not resolve to an executable. */
function executableOf(program: string | undefined, path: string | undefined, cwd: string): string | null {
  if (program === undefined) return null;
  try {
    return resolveExecutable(program, path, cwd);
  } catch {
    return null;
  }
}
