// What a call would run, shown before it runs: for a person deciding an approval.
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
  if (!found.ok) return { args: shownArgs, argv: null, issues: found.issues };
  const rendered = renderCallArgv(found.command, args, found.pack.cwd, (m) => redact(m, secrets));
  if (!rendered.ok) return { args: shownArgs, argv: null, issues: redactDeep(rendered.issues, secrets) };
  return { args: shownArgs, argv: rendered.argv.map((a) => redact(a, secrets)), issues: [] };
}
