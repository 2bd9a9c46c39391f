// What a call would run, without running it: the argv rendered from the arguments exactly as the
// runner renders it, the working directory, and the environment with each credential as a marker.
import { parse as parseTemplate, render } from '@harness/tmpl';
import type { PacksIssue } from './errors';
import { findPackCommand, renderCallArgv } from './plan';
import type { PackSet } from './types';

/** The marker a rendered environment shows in place of credential `name`'s value. */
export const credentialMarker = (name: string): string => `[credential ${name}]`;

/** What {@link renderPackCommand} returns: the call as it would run, or why it would not. */
export type RenderedCall =
  | {
      readonly ok: true;
      readonly commandId: string;
      readonly argv: readonly string[];
      readonly cwd: string;
      /** The pack's environment (PATH is added at run time), each credential shown as a marker. */
      readonly env: Readonly<Record<string, string>>;
    }
  | { readonly ok: false; readonly issues: readonly PacksIssue[] };

/**
 * Renders the argv a call of `commandId` with `args` would run, through the same argument checks
 * and leading-dash refusal as {@link runPackCommand}, and runs nothing. No credential value is read:
 * the environment shows {@link credentialMarker} where a credential goes.
 */
export function renderPackCommand(workspace: PackSet, commandId: string, args: unknown): RenderedCall {
  const found = findPackCommand(workspace, commandId);
  if (!found.ok) return found;
  const { command, pack } = found;
  const rendered = renderCallArgv(command, args, pack.cwd);
  if (!rendered.ok) return rendered;
  const { argv } = rendered;
  const markers = { get: (path: string) => credentialMarker(path.slice('credential.'.length)) };
  const env: Record<string, string> = {};
  for (const [key, template] of Object.entries(pack.env)) {
    const t = parseTemplate(template);
    if (t.ok) env[key] = render(t.template, markers);
  }
  return { ok: true, commandId, argv, cwd: pack.cwd, env };
}
