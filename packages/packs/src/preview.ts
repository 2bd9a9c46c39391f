// What a call would run, shown before it runs: for a person deciding an approval.
import { renderArgv, TmplError } from '@harness/tmpl';
import { redact, redactDeep } from './credentials';
import { PacksErrorCode as Code, type PacksIssue } from './errors';
import { getCommand, unknownCommandMessage } from './lookup';
import { prepareArgs } from './runner';
import type { CredentialSource, Workspace } from './types';

/** A call as {@link previewPackCall} shows it; every credential value is `[redacted]` in it. */
export interface PackCallPreview {
  /** The argument values as given. */
  readonly args: Readonly<Record<string, unknown>>;
  /** The argv the call would run, as {@link runPackCommand} renders it; `null` when it would not render. */
  readonly argv: readonly string[] | null;
  /** Why `argv` is `null` (unknown command, bad arguments, refused render); empty otherwise. */
  readonly issues: readonly PacksIssue[];
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
  const command = getCommand(workspace, commandId);
  const pack = workspace.packs.find((p) => p.id === command?.pack);
  const secrets = (pack?.credentials ?? [])
    .map((n) => options.credentials?.get(n))
    .filter((v): v is string => typeof v === 'string' && v !== '');
  const shownArgs = redactDeep({ ...args }, secrets);
  if (!command) {
    const message = unknownCommandMessage(workspace, commandId);
    return { args: shownArgs, argv: null, issues: [{ code: Code.UNKNOWN_COMMAND, message, path: [] }] };
  }
  const prepared = prepareArgs(command, args);
  if (!prepared.ok) return { args: shownArgs, argv: null, issues: redactDeep(prepared.issues, secrets) };
  try {
    const argv = renderArgv(command.argv, prepared.values, { allowLeadingDash: command.leadingDash });
    return { args: shownArgs, argv: argv.map((a) => redact(a, secrets)), issues: [] };
  } catch (error) {
    if (!(error instanceof TmplError)) throw error;
    const issue: PacksIssue = {
      code: Code.RENDER_REFUSED,
      message: redact(`${commandId}: ${error.message}`, secrets),
      path: error.path ? [error.path] : [],
    };
    return { args: shownArgs, argv: null, issues: [issue] };
  }
}
