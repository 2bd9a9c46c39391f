// What a call would run, shown before it runs: for a person deciding an approval.
import { renderArgv, TmplError } from '@harness/tmpl';
import { redact, redactDeep } from './credentials';
import type { PacksIssue } from './errors';
import { getCommand, unknownCommandIssue } from './lookup';
import { prepareArgs, renderRefused } from './runner';
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
    return { args: shownArgs, argv: null, issues: [unknownCommandIssue(workspace, commandId)] };
  }
  const prepared = prepareArgs(command, args);
  if (!prepared.ok) return { args: shownArgs, argv: null, issues: redactDeep(prepared.issues, secrets) };
  try {
    const argv = renderArgv(command.argv, prepared.values, { allowLeadingDash: command.leadingDash });
    return { args: shownArgs, argv: argv.map((a) => redact(a, secrets)), issues: [] };
  } catch (error) {
    if (!(error instanceof TmplError)) throw error;
    return {
      args: shownArgs,
      argv: null,
      issues: [renderRefused(commandId, error, (m) => redact(m, secrets))],
    };
  }
}
