// A command's `preview`, run when a call of it is held for approval: the read command it names, run
// as any call of that read command runs (confined by the same sandbox machinery, no network), with
// its output cut to what a person reads beside the approval. Its failure is a line of the result,
// never a refusal: a preview only informs the person.

import { previewArgs } from './display';
import { findPackCommand } from './plan';
import { type RunPackOptions, runPackCommand } from './runner';
import type { PackSet } from './types';

/** Lines of a preview's output kept: 40. */
export const PREVIEW_MAX_LINES = 40;
/** Bytes of a preview's output kept: 4 KiB. */
export const PREVIEW_MAX_BYTES = 4096;
/** How long a preview may run before it is killed: 5 s (or the read command's own timeout, if shorter). */
export const PREVIEW_TIMEOUT_MS = 5000;

/** What a preview showed: the read command's output, cut, or the line saying why there is none. */
export interface CommandPreviewResult {
  /** Manifest id of the read command run (`git.staged_diff`). */
  readonly command: string;
  /** `false`: it did not run, failed or timed out; `text` is that one line. */
  readonly ok: boolean;
  /** Its stdout (cut at {@link PREVIEW_MAX_LINES} lines and {@link PREVIEW_MAX_BYTES} bytes), or the failure line. */
  readonly text: string;
  /** Whether output was left out past the bounds. */
  readonly truncated: boolean;
}

/** `text` cut at {@link PREVIEW_MAX_LINES} lines and {@link PREVIEW_MAX_BYTES} bytes (never inside a character). */
function bounded(text: string): { text: string; truncated: boolean } {
  let lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  let truncated = lines.length > PREVIEW_MAX_LINES;
  lines = lines.slice(0, PREVIEW_MAX_LINES);
  let out = lines.join('\n');
  const bytes = Buffer.from(out, 'utf8');
  if (bytes.length > PREVIEW_MAX_BYTES) {
    truncated = true;
    out = bytes
      .subarray(0, PREVIEW_MAX_BYTES)
      .toString('utf8')
      .replace(/\uFFFD+$/, '');
  }
  return { text: out, truncated };
}

/**
 * Runs the preview of command `commandId` for a call's `args`; `null` when the command declares
 * none. Never throws and never refuses: a preview that cannot run, fails or times out (after
 * {@link PREVIEW_TIMEOUT_MS}) is a result with `ok: false` and one line saying so.
 */
export async function runCommandPreview(
  workspace: PackSet,
  commandId: string,
  args: Readonly<Record<string, unknown>>,
  options: Pick<RunPackOptions, 'credentials' | 'spawner'> = {},
): Promise<CommandPreviewResult | null> {
  const found = findPackCommand(workspace, commandId);
  if (!found.ok || found.command.preview === undefined) return null;
  const command = `${found.pack.id}.${found.command.preview.command}`;
  const failed = (line: string): CommandPreviewResult => ({
    command,
    ok: false,
    text: line,
    truncated: false,
  });
  try {
    const signal = AbortSignal.timeout(PREVIEW_TIMEOUT_MS);
    const result = await runPackCommand(workspace, command, previewArgs(found.command, args), {
      ...options,
      signal,
    });
    if (!result.ok) return failed(`preview did not run: ${result.issues.map((i) => i.message).join('; ')}`);
    const { outcome } = result;
    if (outcome.cancelled) return failed(`preview timed out after ${PREVIEW_TIMEOUT_MS / 1000}s`);
    if (!outcome.ok) return failed(`preview failed: ${outcome.message}`);
    return { command, ok: true, ...bounded(outcome.stdout) };
  } catch (error) {
    return failed(`preview failed: ${(error as Error).message}`);
  }
}
