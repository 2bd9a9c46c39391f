// Argument validation: fill what the host supplies (--loom, --expect), then check the schema.

import type { CommandAnswer, ManifestRow, RunRequest } from '@harness/protocol';
import { composeSemanticErrors } from '../builtins';
import { validateArgs } from '../validate';
import { refusedAnswer } from './answers';

/** Arguments ready to dispatch, and whether `loom_id` came from `--loom` (an implicit origin). */
export interface CheckedArgs {
  args: Record<string, unknown>;
  loomIdImplicit: boolean;
}

/**
 * Fills host-sourced arguments — `x-source: "loom"` from `--loom`, compose's guard from `--expect` —
 * and validates the result against the row's schema (and compose's own rules). Returns the
 * arguments, or the `bad-args` answer naming every issue.
 */
export function checkArguments(
  row: ManifestRow,
  request: Pick<RunRequest, 'command' | 'args' | 'loomId' | 'expectedVersion'>,
): CheckedArgs | { refused: CommandAnswer } {
  const id = request.command;
  const args: Record<string, unknown> = { ...request.args };
  let loomIdImplicit = false;
  const props =
    (row.inputs as { properties?: Record<string, { 'x-source'?: unknown }> } | undefined)?.properties ?? {};
  const errors: { path: string; message: string }[] = [];
  if (request.loomId !== undefined) {
    for (const [name, prop] of Object.entries(props)) {
      if (prop?.['x-source'] !== 'loom') continue;
      if (args[name] === undefined) {
        args[name] = request.loomId;
        loomIdImplicit = true;
      } else if (args[name] !== request.loomId) {
        errors.push({ path: `/${name}`, message: `differs from --loom ${request.loomId}` });
      }
    }
  }
  if (id === 'loom.compose' && request.expectedVersion !== undefined) {
    if (args.expected_version === undefined) args.expected_version = request.expectedVersion;
    else if (args.expected_version !== request.expectedVersion) {
      errors.push({ path: '/expected_version', message: `differs from --expect ${request.expectedVersion}` });
    }
  }
  errors.push(...validateArgs(row.inputs, args));
  if (errors.length === 0 && id === 'loom.compose') errors.push(...composeSemanticErrors(args));
  if (errors.length === 0) return { args, loomIdImplicit };
  return {
    refused: refusedAnswer(id, 'bad-args', undefined, `the arguments do not match ${id}'s schema`, errors),
  };
}
