// One pack command from its schema-valid entry: its templates checked (its argv, or each variant's),
// its inputs, defaults, values and examples checked, the pack's input_overrides applied, its
// required list derived from the argv, and the pack's defaults (tier, timeout, output ceiling,
// label) applied.

import { parseDuration } from '@harness/config';
import { showPath } from '@harness/errors';
import { labelWithCredentials } from '../credential-flow';
import { PacksErrorCode as Code, type PacksIssue } from '../errors';
import { listForMessage } from '../lookup';
import { PATH_ESCAPE_WORDS, pathEscape } from '../paths';
import { checkValue, type RenderableCommand } from '../plan';
import type { CommandExample, Effects, InputSchema, Label, PackCommand, Requirement, Tier } from '../types';
import { checkExamples } from './command-examples';
import { checkCommandTemplates } from './templates';
import type { CheckContext, Path, RawPack } from './types';

/** What a command inherits from its pack. */
export interface PackDefaults {
  readonly tier: Tier;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  /** The pack's `approval_wait`, else the workspace's, in ms; 0: none. */
  readonly approvalWaitMs: number;
  /** The pack's `approval_timeout`, else the workspace's, else the default, in ms. */
  readonly approvalTimeoutMs: number;
  /** The pack's `telemetry.include_args`. */
  readonly telemetryArgs: boolean;
  readonly label: Label | undefined;
  /** The credentials the pack's env hands every command's process. */
  readonly credentials: readonly string[];
  /** Manifest ids the host serves itself; a command colliding with one is an issue. */
  readonly reserved: ReadonlySet<string>;
  /** The pack's working directory. */
  readonly cwd: string;
  /** Leave an `enum_from_workspace` input open when the workspace lists no values. */
  readonly openListedValues?: boolean;
}

type RawCommand = RawPack['commands'][number];
type RawValues = NonNullable<RawCommand['values']>;
type RawExample = NonNullable<RawCommand['examples']>[number];

/** One way to run a command: its argv, or one of its variants. */
export interface CommandForm {
  readonly argv: readonly string[];
  readonly required: readonly string[];
  readonly values: PackCommand['values'];
  readonly examples: readonly CommandExample[];
  /** The variant's requirements (empty for a command with a plain argv). */
  readonly requires: readonly Requirement[];
  /** Where the variant is written, for probe issues; absent for a plain argv. */
  readonly at?: Path;
}

/** A built command and, for a command with `variants`, each variant (the probes choose one). */
export interface BuiltCommand {
  readonly command: Omit<PackCommand, 'sandbox'>;
  readonly variants?: readonly CommandForm[];
  /** The inputs whose values the workspace should list and does not: the command is not offered. */
  readonly unlisted: readonly string[];
}

const asExample = (raw: RawExample): CommandExample =>
  raw.argv !== undefined
    ? { args: raw.args ?? {}, argv: raw.argv }
    : { args: raw.args ?? {}, refused: raw.refused ?? '' };

/** Builds command `ci` of pack `rp`, pushing its issues; the command is returned even when it has some. */
export function buildCommand(
  rp: RawPack,
  ci: number,
  pPath: Path,
  defaults: PackDefaults,
  ctx: CheckContext,
  issues: PacksIssue[],
): BuiltCommand {
  const rc = rp.commands[ci]!;
  const cPath: Path = [...pPath, 'commands', ci];
  const manifestId = `${rp.id}.${rc.id}`;
  if (defaults.reserved.has(manifestId)) {
    issues.push(
      ctx.issue(
        Code.duplicate_id,
        [...cPath, 'id'],
        `command "${manifestId}" collides with the host's built-in command "${manifestId}"; rename the pack or the command`,
        { kind: 'command', id: manifestId, builtIn: true },
      ),
    );
  }
  const declared = declaredInputs(rc);
  const building: Building = { rc, cPath, manifestId, declared, ctx, issues };
  let inputs = declared.inputs;
  const forms: CommandForm[] = [];
  for (const raw of rawForms(rc, cPath)) {
    const built = buildForm(building, raw, inputs);
    inputs = built.inputs;
    forms.push(built.form);
  }
  if (rc.values) checkValues(rc.values, inputs, [...cPath, 'values'], manifestId, ctx, issues);
  checkExitCodes(rc, cPath, ctx, issues);
  checkDefaults(inputs, declared.withinCwd, cPath, manifestId, ctx, issues);
  const listed = defaults.openListedValues === true ? [] : declared.fromWorkspace;
  inputs = applyInputOverrides(rp, rc.id, inputs, pPath, manifestId, ctx, issues);
  const unlisted = listed.filter((name) => inputs[name]?.enum === undefined);
  // A default an override gives makes its input optional too.
  const final = forms.map((f) =>
    Object.freeze({
      ...f,
      required: Object.freeze(f.required.filter((n) => inputs[n]?.default === undefined)),
    }),
  );
  const command = commandOf(rp, building, inputs, final[0]!, defaults);
  return rc.variants ? { command, variants: Object.freeze(final), unlisted } : { command, unlisted };
}

/** The command being built, as each step of {@link buildCommand} reads it. */
interface Building {
  readonly rc: RawCommand;
  readonly cPath: Path;
  readonly manifestId: string;
  readonly declared: DeclaredInputs;
  readonly ctx: CheckContext;
  readonly issues: PacksIssue[];
}

/** Each way to run the command as written (its variants, or its one argv), with where its parts sit. */
function rawForms(rc: RawCommand, cPath: Path) {
  return rc.variants
    ? rc.variants.map((v, vi) => ({
        argv: v.argv,
        at: [...cPath, 'variants', vi] as Path,
        variant: vi as number | undefined,
        values: v.values ?? rc.values,
        valuesAt: v.values ? ([...cPath, 'variants', vi, 'values'] as Path) : undefined,
        examples: v.examples ?? [],
        requires: v.requires ?? [],
      }))
    : [
        {
          argv: rc.argv ?? [],
          at: cPath,
          variant: undefined,
          values: rc.values,
          valuesAt: undefined,
          examples: [],
          requires: [],
        },
      ];
}

type RawForm = ReturnType<typeof rawForms>[number];

/**
 * One form checked and built: its templates, values and examples. A command that declares no
 * inputs takes them from the form's templates, so the inputs it returns replace `inputs`.
 */
function buildForm(
  b: Building,
  form: RawForm,
  given: Record<string, InputSchema>,
): { form: CommandForm; inputs: Record<string, InputSchema> } {
  const { rc, cPath, manifestId, declared, ctx, issues } = b;
  const refs = checkCommandTemplates({ argv: form.argv, inputs: rc.inputs }, form.at, ctx, issues);
  let inputs = given;
  if (!rc.inputs) {
    inputs = {};
    for (const ref of refs) inputs[ref.path] = { type: 'string' };
  }
  const required = [
    ...new Set(
      refs.filter((r) => r.form === 'required' && inputs[r.path]?.default === undefined).map((r) => r.path),
    ),
  ];
  if (form.valuesAt) checkValues(form.values, inputs, form.valuesAt, manifestId, ctx, issues);
  const values = Object.freeze({ ...(form.values ?? {}) });
  const renderable: RenderableCommand = {
    manifestId,
    argv: form.argv,
    inputs,
    required,
    leadingDash: declared.leadingDash,
    withinCwd: declared.withinCwd,
    values,
  };
  // The command's own examples hold for every variant; a variant's, for that variant.
  const listed = [
    ...(rc.examples ?? []).map((e, i) => ({
      example: asExample(e),
      at: [...cPath, 'examples', i],
      index: i,
    })),
    ...form.examples.map((e, i) => ({ example: asExample(e), at: [...form.at, 'examples', i], index: i })),
  ];
  checkExamples(renderable, listed, form.variant, ctx, issues);
  return {
    inputs,
    form: {
      argv: Object.freeze([...form.argv]),
      required: Object.freeze(required),
      values,
      examples: Object.freeze(listed.map((l) => l.example)),
      requires: Object.freeze(form.requires.map(requirementOf)),
      ...(form.variant === undefined ? {} : { at: form.at }),
    },
  };
}

/** The command as served: its first form, its final inputs, and the pack's defaults applied. */
function commandOf(
  rp: RawPack,
  b: Building,
  inputs: Record<string, InputSchema>,
  first: CommandForm,
  defaults: PackDefaults,
): BuiltCommand['command'] {
  const { rc, manifestId, declared } = b;
  const effects: Effects = rc.effects ?? 'write';
  const overrideTimeout = rp.timeout_overrides?.[rc.id];
  // What it prints may be a credential in another form: its output carries each one's atom.
  const label = labelWithCredentials(
    (rc.label as Label | undefined) ?? defaults.label,
    defaults.credentials,
    rc.credential_output_unlabeled,
  );
  const description = rc.description?.trim() ?? '';
  return Object.freeze({
    id: rc.id,
    manifestId,
    pack: rp.id,
    title: rc.title ?? (description.split('\n')[0] || manifestId),
    description,
    argv: first.argv,
    ...(rc.display === undefined ? {} : { display: rc.display }),
    ...(rc.preview === undefined
      ? {}
      : {
          preview: Object.freeze({
            command: rc.preview.command,
            args: Object.freeze({ ...rc.preview.args }),
          }),
        }),
    inputs: Object.freeze(inputs),
    leadingDash: Object.freeze(declared.leadingDash),
    withinCwd: Object.freeze(declared.withinCwd),
    values: first.values,
    examples: first.examples,
    required: first.required,
    effects,
    effectsDeclared: rc.effects !== undefined,
    output: rc.output?.parse ?? 'text',
    sortLines: rc.output?.sort === true,
    okExitCodes: Object.freeze([...new Set(rc.ok_exit_codes ?? [0])]),
    failureExitCodes: Object.freeze({ ...rc.failure_exit_codes }),
    unchangedExitCodes: Object.freeze([...new Set(rc.unchanged_exit_codes ?? [])]),
    tier: rp.permission_overrides?.[rc.id] ?? defaults.tier,
    timeoutMs: overrideTimeout === undefined ? defaults.timeoutMs : parseDuration(overrideTimeout)!,
    maxOutputBytes: defaults.maxOutputBytes,
    ...(defaults.approvalWaitMs > 0 ? { approvalWaitMs: defaults.approvalWaitMs } : {}),
    approvalTimeoutMs: defaults.approvalTimeoutMs,
    ...(defaults.telemetryArgs ? { telemetryArgs: true as const } : {}),
    scopes: Object.freeze([...new Set([...(rp.scopes ?? []), ...(rc.scopes ?? [])])]),
    planInputs: Object.freeze([...new Set([...(rp.plan_inputs ?? []), ...(rc.plan_inputs ?? [])])]),
    ...(label ? { label } : {}),
    // As declared; the load drops it where the command does not run confined (./unattended).
    ...(rp.unattended_when_confined?.includes(rc.id) ? { unattended: true as const } : {}),
  });
}

/** What an `invalid_args` issue says the input expected. */
const expectedOf = (issue: PacksIssue): string =>
  String((issue.details as { expected?: unknown } | undefined)?.expected ?? 'a valid value');

const requirementOf = (r: { binary: string; version?: string | undefined }): Requirement =>
  r.version === undefined ? { binary: r.binary } : { binary: r.binary, version: r.version };

type DeclaredInputs = ReturnType<typeof declaredInputs>;

/** The inputs as the model sees them, and the pack's own decisions about them (never shown to the model). */
function declaredInputs(rc: RawCommand): {
  inputs: Record<string, InputSchema>;
  leadingDash: string[];
  withinCwd: string[];
  fromWorkspace: string[];
} {
  const inputs: Record<string, InputSchema> = {};
  const leadingDash: string[] = [];
  const withinCwd: string[] = [];
  const fromWorkspace: string[] = [];
  for (const [name, entry] of Object.entries(rc.inputs ?? {})) {
    const { allow_leading_dash, code: _code, within_cwd, enum_from_workspace, ...schema } = entry;
    inputs[name] = { ...schema, type: schema.type ?? 'string' } as InputSchema;
    if (allow_leading_dash === true) leadingDash.push(name);
    if (within_cwd === true) withinCwd.push(name);
    if (enum_from_workspace === true) fromWorkspace.push(name);
  }
  return { inputs, leadingDash, withinCwd, fromWorkspace };
}

/** The values an input can take that `values` must map: `true`/`false`, or each enum member. */
function domainOf(schema: InputSchema): string[] | undefined {
  if (schema.enum !== undefined) return schema.enum.map(String);
  if (schema.type === 'boolean') return ['true', 'false'];
  return undefined;
}

/**
 * An exit code means success (`ok_exit_codes`, `[0]` when undeclared) or a named failure
 * (`failure_exit_codes`), never both: each code both claim is an issue naming both keys.
 */
function checkExitCodes(rc: RawCommand, cPath: Path, ctx: CheckContext, issues: PacksIssue[]): void {
  const ok = rc.ok_exit_codes ?? [0];
  const okKey = rc.ok_exit_codes === undefined ? 'ok_exit_codes (undeclared, so [0])' : 'ok_exit_codes';
  for (const [code, failure] of Object.entries(rc.failure_exit_codes ?? {})) {
    if (!ok.includes(Number(code))) continue;
    const where: Path = [...cPath, 'failure_exit_codes', code];
    issues.push(
      ctx.issue(
        Code.schema,
        where,
        `${showPath(where)}: exit code ${code} is both in ${okKey} and in failure_exit_codes (${failure}); an exit code means success or a named failure, not both: remove it from one of them`,
        { expected: 'an exit code not in ok_exit_codes', found: code },
      ),
    );
  }
}

/** `values` maps only boolean and enum inputs, every value each can take, and nothing else. */
function checkValues(
  values: RawValues | undefined,
  inputs: Readonly<Record<string, InputSchema>>,
  at: Path,
  manifestId: string,
  ctx: CheckContext,
  issues: PacksIssue[],
): void {
  for (const [name, texts] of Object.entries(values ?? {})) {
    const where: Path = [...at, name];
    const schema = inputs[name];
    const fail = (expected: string, found: string, message: string) =>
      issues.push(ctx.issue(Code.schema, where, `${showPath(where)}: ${message}`, { expected, found }));
    if (schema === undefined) {
      const names = Object.keys(inputs);
      fail(
        `an input of ${manifestId}`,
        `"${name}"`,
        `names no input of ${manifestId}; expected one of ${listForMessage(names)}`,
      );
      continue;
    }
    const domain = domainOf(schema);
    if (domain === undefined) {
      fail(
        'a boolean input or one with an enum',
        `a ${schema.type} input`,
        `values maps only a boolean input or one with an enum; "${name}" is a ${schema.type} input with no enum`,
      );
      continue;
    }
    const missing = domain.filter((v) => !Object.hasOwn(texts, v));
    const extra = Object.keys(texts).filter((v) => !domain.includes(v));
    if (missing.length > 0 || extra.length > 0) {
      fail(
        `a text for each of ${domain.join(', ')}`,
        Object.keys(texts).join(', ') || 'nothing',
        `expected a text for each value input "${name}" takes (${domain.join(', ')})${missing.length > 0 ? `; missing ${missing.join(', ')}` : ''}${extra.length > 0 ? `; ${extra.join(', ')} is not a value it takes` : ''}`,
      );
    }
  }
}

/**
 * Each `default` must be a value its input accepts; a `within_cwd` default a relative path with no
 * `..` (judged as written, as examples are: the same on every machine).
 */
function checkDefaults(
  inputs: Readonly<Record<string, InputSchema>>,
  withinCwd: readonly string[],
  cPath: Path,
  manifestId: string,
  ctx: CheckContext,
  issues: PacksIssue[],
): void {
  for (const [name, schema] of Object.entries(inputs)) {
    if (schema.default === undefined) continue;
    const where: Path = [...cPath, 'inputs', name, 'default'];
    const r = checkValue(manifestId, name, schema, schema.default);
    const escaped = typeof r === 'string' && withinCwd.includes(name) ? pathEscape(r, null) : undefined;
    if (typeof r === 'string' && escaped === undefined) continue;
    const expected = typeof r === 'string' ? 'a path inside the working directory' : expectedOf(r);
    const found = escaped === undefined ? JSON.stringify(schema.default) : PATH_ESCAPE_WORDS[escaped];
    issues.push(
      ctx.issue(
        Code.schema,
        where,
        `${showPath(where)}: expected a default that input "${name}" accepts (${expected}), found ${found}`,
        { expected: `a value input "${name}" accepts`, found },
      ),
    );
  }
}

/**
 * The inputs with the pack's `input_overrides` for this command applied: an override narrows an
 * enum (each value one the command's own input accepts), replaces a description or a default. An
 * input whose values the workspace lists (`enum_from_workspace`) gets its enum here; without one,
 * its command is not offered (see {@link buildCommand}'s `unlisted`).
 */
function applyInputOverrides(
  rp: RawPack,
  commandId: string,
  inputs: Record<string, InputSchema>,
  pPath: Path,
  manifestId: string,
  ctx: CheckContext,
  issues: PacksIssue[],
): Record<string, InputSchema> {
  const overrides = rp.input_overrides?.[commandId] ?? {};
  const at: Path = [...pPath, 'input_overrides', commandId];
  const out = { ...inputs };
  for (const [name, override] of Object.entries(overrides)) {
    const base = inputs[name];
    if (base === undefined) {
      const expected = Object.keys(inputs);
      issues.push(
        ctx.issue(
          Code.unknown_override,
          [...at, name],
          `input_overrides key "${commandId}.${name}" names no input of ${manifestId}; expected one of ${listForMessage(expected)}`,
          { pack: rp.id, key: 'input_overrides', command: commandId, input: name, expected },
          true,
        ),
      );
      continue;
    }
    (override.enum ?? []).forEach((value, i) => {
      const r = checkValue(manifestId, name, base, value);
      if (typeof r === 'string') return;
      const where: Path = [...at, name, 'enum', i];
      issues.push(
        ctx.issue(
          Code.schema,
          where,
          `${showPath(where)}: an override only narrows what ${manifestId} accepts; expected a value its input "${name}" accepts (${expectedOf(r)}), found ${JSON.stringify(value)}`,
          { expected: `a value input "${name}" accepts`, found: JSON.stringify(value) },
        ),
      );
    });
    const merged: InputSchema = { ...base };
    if (override.enum !== undefined) (merged as { enum?: unknown }).enum = override.enum;
    if (override.description !== undefined)
      (merged as { description?: string }).description = override.description;
    if (override.default !== undefined) (merged as { default?: unknown }).default = override.default;
    if (override.default !== undefined) {
      const r = checkValue(manifestId, name, merged, override.default);
      if (typeof r !== 'string') {
        const where: Path = [...at, name, 'default'];
        issues.push(
          ctx.issue(
            Code.schema,
            where,
            `${showPath(where)}: expected a default that input "${name}" accepts (${expectedOf(r)}), found ${JSON.stringify(override.default)}`,
            { expected: `a value input "${name}" accepts`, found: JSON.stringify(override.default) },
          ),
        );
      }
    }
    out[name] = merged;
  }
  return out;
}
