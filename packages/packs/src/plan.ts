// A call planned, not run: the arguments checked against the command's inputs and its frozen argv
// rendered from them, the same way for a run, a preview for a person, and a dry render.
import { FALLBACK_PATH } from '@harness/exec/internal';
import { renderArgv, TmplError } from '@harness/tmpl';
import { PacksErrorCode as Code, type PacksIssue, type PacksIssueDetails, packsIssue } from './errors';
import { getCommand, type PackScope, unknownCommandIssue } from './lookup';
import { PATH_ESCAPE_WORDS, pathEscape } from './paths';
import type { InputSchema, Pack, PackCommand } from './types';

/**
 * The `PATH` a command of `pack` is resolved against and runs with: the pack's own `PATH`, else the
 * caller's (`path`), else this process's, else the fallback. The plan and the run read this one.
 */
export function commandPath(pack: Pack, path?: string): string {
  return pack.env.PATH ?? path ?? process.env.PATH ?? FALLBACK_PATH;
}

/** What rendering a call reads of a command. */
export type RenderableCommand = Pick<
  PackCommand,
  'manifestId' | 'argv' | 'inputs' | 'required' | 'leadingDash' | 'withinCwd' | 'values'
>;

/** A command of a pack set with the pack that holds it. */
export interface FoundCommand {
  readonly command: PackCommand;
  readonly pack: Pack;
}

/** The command with manifest id `commandId` and its pack, or the `unknown_command` issue naming what exists. */
export function findPackCommand(
  workspace: PackScope,
  commandId: string,
): ({ readonly ok: true } & FoundCommand) | { readonly ok: false; readonly issues: PacksIssue[] } {
  const command = getCommand(workspace, commandId);
  const pack = workspace.packs.find((p) => p.id === command?.pack);
  if (!command || !pack) return { ok: false, issues: [unknownCommandIssue(workspace, commandId)] };
  return { ok: true, command, pack };
}

/**
 * The argv a call of `command` with `args` runs: the arguments checked (CP-36) with each absent
 * input's `default` filled in, every `within_cwd` path checked against `cwd` (the pack's working
 * directory; `null`: as written only, no file looked at, for examples), each mapped input replaced
 * by its `values` text, then the frozen template rendered with `@harness/tmpl` (values only, one
 * element per element, leading dash refused unless the command allows it). Nothing runs. `shown` is applied to a refused render's message (callers
 * redact the pack's credentials there).
 */
export function renderCallArgv(
  command: RenderableCommand,
  args: unknown,
  cwd: string | null,
  shown: (message: string) => string = (message) => message,
): { readonly ok: true; readonly argv: string[] } | { readonly ok: false; readonly issues: PacksIssue[] } {
  const prepared = prepareArgs(command, args);
  if (!prepared.ok) return prepared;
  const { values } = prepared;
  const id = command.manifestId;
  const issues: PacksIssue[] = [];
  for (const name of command.withinCwd) {
    const value = values.get(name);
    const escaped = value === undefined ? undefined : pathEscape(value, cwd);
    if (escaped === undefined) continue;
    const expected = 'a path inside the working directory, relative to it';
    issues.push(
      argIssue(id, `expected ${expected}, found ${PATH_ESCAPE_WORDS[escaped]}; nothing ran`, {
        input: name,
        reason: 'path_outside_cwd',
        expected,
        found: PATH_ESCAPE_WORDS[escaped],
      }),
    );
  }
  if (issues.length > 0) return { ok: false, issues };
  for (const [name, texts] of Object.entries(command.values)) {
    const value = values.get(name);
    if (value !== undefined && Object.hasOwn(texts, value)) values.set(name, texts[value]!);
  }
  try {
    return {
      ok: true,
      argv: renderArgv(command.argv, values, { allowLeadingDash: command.leadingDash }),
    };
  } catch (error) {
    if (!(error instanceof TmplError)) throw error;
    return { ok: false, issues: [renderRefused(command.manifestId, error, shown)] };
  }
}

type ArgDetails = PacksIssueDetails['invalid_args'];

function argIssue(
  commandId: string,
  message: string,
  details: Omit<ArgDetails, 'command'> & { readonly input: string },
): PacksIssue {
  return packsIssue(
    Code.invalid_args,
    `${commandId}: argument "${details.input}" ${message}`,
    [details.input],
    {
      command: commandId,
      ...details,
    },
  );
}

/**
 * Checks one value against an input's schema: the text it fills a slot with, or the
 * `invalid_args` issue saying what was expected (never the value itself).
 */
export function checkValue(
  commandId: string,
  name: string,
  schema: InputSchema,
  value: unknown,
): PacksIssue | string {
  // `found` is the value's type, never the value: an argument may be a secret.
  const fail = (expected: string, found?: string) =>
    argIssue(commandId, `expected ${expected}${found === undefined ? '' : `, found ${found}`}`, {
      input: name,
      reason: 'invalid_value',
      expected,
      ...(found === undefined ? {} : { found }),
    });
  let text: string;
  switch (schema.type) {
    case 'string':
      if (typeof value !== 'string') return fail('a string', value === null ? 'null' : typeof value);
      if (schema.minLength !== undefined && [...value].length < schema.minLength)
        return fail(`at least ${schema.minLength} characters`);
      if (schema.maxLength !== undefined && [...value].length > schema.maxLength)
        return fail(`at most ${schema.maxLength} characters`);
      if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value))
        return fail(`to match the pattern ${schema.pattern}`);
      text = value;
      break;
    case 'integer':
    case 'number':
      if (
        typeof value !== 'number' ||
        !Number.isFinite(value) ||
        (schema.type === 'integer' && !Number.isInteger(value))
      )
        return fail(
          schema.type === 'integer' ? 'an integer' : 'a number',
          typeof value === 'number' ? String(value) : typeof value,
        );
      if (schema.minimum !== undefined && value < schema.minimum) return fail(`at least ${schema.minimum}`);
      if (schema.maximum !== undefined && value > schema.maximum) return fail(`at most ${schema.maximum}`);
      text = String(value);
      break;
    case 'boolean':
      if (typeof value !== 'boolean') return fail('true or false', typeof value);
      text = value ? 'true' : 'false';
      break;
  }
  if (schema.enum !== undefined && !schema.enum.some((e) => e === value)) {
    return fail(`one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  }
  return text;
}

/**
 * Checks call arguments against a command's inputs and converts them to the strings that fill its
 * slots: strings as given, numbers in JavaScript's shortest decimal form (`3`, `-1.5`), booleans as
 * `true` / `false`; an absent input with a `default` gets it. Unknown arguments and missing required
 * ones are issues (CP-36).
 */
function prepareArgs(
  command: RenderableCommand,
  args: unknown,
): { ok: true; values: Map<string, string> } | { ok: false; issues: PacksIssue[] } {
  const id = command.manifestId;
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return {
      ok: false,
      issues: [
        packsIssue(Code.invalid_args, `${id}: arguments must be an object`, [], {
          command: id,
          reason: 'not_an_object',
          expected: 'an object',
        }),
      ],
    };
  }
  const issues: PacksIssue[] = [];
  const values = new Map<string, string>();
  const record = args as Record<string, unknown>;
  for (const name of Object.keys(record)) {
    if (!Object.hasOwn(command.inputs, name)) {
      const expected = Object.keys(command.inputs).join(', ') || 'no arguments';
      issues.push(
        argIssue(id, `is not an input; expected ${expected}`, {
          input: name,
          reason: 'unknown_input',
          expected,
        }),
      );
    }
  }
  for (const [name, schema] of Object.entries(command.inputs)) {
    const given = record[name];
    const value = given === undefined || given === null ? schema.default : given;
    if (value === undefined || value === null) {
      if (command.required.includes(name))
        issues.push(
          argIssue(id, 'is required and missing; nothing ran', {
            input: name,
            reason: 'missing',
            expected: 'a value',
          }),
        );
      continue;
    }
    const r = checkValue(id, name, schema, value);
    if (typeof r === 'string') values.set(name, r);
    else issues.push(r);
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, values };
}

/**
 * The `render_refused` issue for a call of `commandId` that tmpl refused to render; `shown` is applied
 * to the message (the runner redacts the pack's credentials there).
 */
function renderRefused(commandId: string, error: TmplError, shown: (message: string) => string): PacksIssue {
  return packsIssue(
    Code.render_refused,
    shown(`${commandId}: ${error.message}`),
    error.path ? [error.path] : [],
    {
      command: commandId,
      reason: error.code,
      ...(error.path === undefined ? {} : { input: error.path }),
    },
  );
}
