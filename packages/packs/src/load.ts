import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { defineContext, parse as parseTemplate, type TemplateRef } from '@harness/tmpl';
import { LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { PacksErrorCode as Code, type PacksErrorCode, type PacksIssue } from './errors';
import { resolveGrantList } from './grants';
import { listForMessage } from './lookup';
import { type Locator, locator } from './positions';
import { type ProbeResult, probeBinary, satisfies } from './probe';
import { ID_PATTERN, NAME_PATTERN, type WorkspaceFile, workspaceSchema } from './schema';
import type {
  Agent,
  CredentialSource,
  Effects,
  InputSchema,
  Label,
  Pack,
  PackCommand,
  Tier,
  UnavailablePack,
  Workspace,
} from './types';
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS, parseByteSize, parseDuration } from './units';

/** Pack ids no workspace may declare: `workspace` (reserved) and `loom` (the host's built-ins). */
export const RESERVED_PACK_IDS: readonly string[] = ['workspace', 'loom'];

/** PATH used when neither the caller nor this process has one. */
export const FALLBACK_PATH = '/usr/local/bin:/usr/bin:/bin';

/** Where the workspace comes from: a file to read, or text already read (with the file name to report). */
export type WorkspaceSource = { readonly file: string } | { readonly text: string; readonly file: string };

/** Options of {@link loadWorkspace}. */
export interface LoadOptions {
  /** Probe `requires` (`<binary> --version`) at load. Default `true`; `false` trusts the file (tests, editors). */
  readonly probe?: boolean;
  /** PATH for probes. Default: this process's `PATH`. */
  readonly path?: string;
  /**
   * The credential source the host will run with. When given, every `credentials_ref` must be
   * present in it, or the load fails (CP-42: never an empty string at run time).
   */
  readonly credentials?: CredentialSource;
  /** Manifest ids the host serves itself (e.g. `loom.compose`): a pack command colliding with one is an error naming both. */
  readonly reservedCommandIds?: readonly string[];
}

/** What {@link loadWorkspace} returns: the workspace and its warnings, or every issue found. */
export type LoadResult =
  | { readonly ok: true; readonly workspace: Workspace; readonly warnings: readonly PacksIssue[] }
  | { readonly ok: false; readonly issues: readonly PacksIssue[] };

type Path = readonly (string | number)[];
type RawPack = NonNullable<WorkspaceFile['command_packs']>[number];

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') {
    const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
    return JSON.stringify(shown);
  }
  return `${typeof value} ${String(value)}`;
}

function get(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[seg as string];
  }
  return v;
}

function showPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path)
    out += typeof seg === 'number' ? `[${seg}]` : out === '' ? String(seg) : `.${String(seg)}`;
  return out || '(root)';
}

function zodMessage(
  issue: z.core.$ZodIssue,
  data: unknown,
): { path: PropertyKey[]; key: boolean; message: string } {
  const path = [...issue.path];
  const found = get(data, path);
  const where = showPath(path);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const key = issue.keys[0] ?? '';
      return { path: [...path, key], key: true, message: `${where}: ${issue.message}` };
    }
    case 'invalid_type':
      if (found === undefined) {
        return {
          path,
          key: false,
          message: `${where}: missing; ${issue.message.startsWith('expected') ? issue.message : `expected ${issue.expected}`}`,
        };
      }
      return {
        path,
        key: false,
        message: `${where}: ${issue.message.startsWith('expected') ? issue.message : `expected ${issue.expected}`}, found ${describe(found)}`,
      };
    case 'invalid_key':
      return {
        path,
        key: true,
        message: `${where}: ${issue.issues[0]?.message ?? issue.message}, found ${describe(path.at(-1))}`,
      };
    case 'too_small':
      return { path, key: false, message: `${where}: ${issue.message}, found ${describe(found)}` };
    default:
      if (issue.message.includes('unknown key'))
        return { path, key: true, message: `${where}: ${issue.message}` };
      return {
        path,
        key: false,
        message: `${where}: ${issue.message.startsWith('expected') ? issue.message : `expected ${issue.message}`}, found ${describe(found)}`,
      };
  }
}

/**
 * Loads a workspace file (YAML, or JSON, which YAML reads too): parses it with positions, checks it
 * against the schema, resolves every default, checks every argv and env template, probes
 * requirements, and resolves every agent's grants. Never throws for a bad file: every problem is an
 * issue naming file, line and column, what was expected and what was found.
 *
 * A file the schema rejects reports its schema issues together with the argv and input checks of
 * every command whose own entry is well-formed (valid `id`, `argv` a list of strings, `inputs`
 * absent or a map) and the env checks of every pack whose `env` is a map of strings and whose
 * `credentials_ref` is absent or well-formed; the other checks, requirement probes and grants need
 * a schema-valid file.
 *
 * A pack whose requirement fails is a load error naming the binary, unless the pack says
 * `optional: true`: then it is left out (its commands are not in the workspace) with a warning.
 */
export async function loadWorkspace(source: WorkspaceSource, options: LoadOptions = {}): Promise<LoadResult> {
  const file = source.file;
  let text: string;
  if ('text' in source) text = source.text;
  else {
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      const why = (error as NodeJS.ErrnoException).code ?? 'read error';
      return {
        ok: false,
        issues: [
          { code: Code.FILE_UNREADABLE, message: `cannot read the workspace file (${why})`, path: [], file },
        ],
      };
    }
  }
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      issues: doc.errors.map((e) => {
        const { line, col } = lc.linePos(e.pos[0]);
        const msg = e.message.split('\n')[0] ?? e.message;
        return {
          code: Code.YAML_SYNTAX,
          message: `not valid YAML: ${msg}`,
          path: [],
          file,
          line,
          column: col,
        };
      }),
    };
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 }) ?? {};
  } catch {
    return {
      ok: false,
      issues: [
        {
          code: Code.YAML_SYNTAX,
          message: 'not valid YAML: too many aliases',
          path: [],
          file,
          line: 1,
          column: 1,
        },
      ],
    };
  }
  const loc = locator(doc, lc, text);
  const issue = (code: PacksErrorCode, path: Path, message: string, key = false): PacksIssue => {
    const { line, column } = loc.at(path, { key });
    return { code, message, path, file, line, column };
  };
  const parsed = workspaceSchema.safeParse(data);
  if (!parsed.success) {
    // One issue per location: the first check that fails says what was expected.
    const seen = new Set<string>();
    const issues: PacksIssue[] = [];
    for (const i of parsed.error.issues) {
      const m = zodMessage(i, data);
      const where = JSON.stringify(m.path);
      if (seen.has(where)) continue;
      seen.add(where);
      issues.push(issue(Code.SCHEMA, m.path as Path, m.message, m.key));
    }
    // The argv, input and env checks need only their own entries, so they run here too: `packs
    // check` then reports every load error in one pass rather than template errors after a fix.
    // Where a schema issue and a template issue share a position, the schema issue says it.
    const taken = new Set(issues.map((i) => `${i.line}:${i.column}`));
    for (const t of checkWellFormedEntries(data, { file, loc, issue })) {
      if (!taken.has(`${t.line}:${t.column}`)) issues.push(t);
    }
    return { ok: false, issues: sortIssues(issues) };
  }
  return build(parsed.data, { file, loc, issue, options });
}

/**
 * An issue positioned inside the string at `at` (a template's placeholder or syntax error), its
 * message prefixed with where that string sits in the file.
 */
function issueInside(
  ctx: CheckContext,
  code: PacksErrorCode,
  at: Path,
  offset: number,
  message: string,
): PacksIssue {
  const { line, column } = ctx.loc.inside(at, offset);
  return { code, message: `${showPath(at)}: ${message}`, path: at, file: ctx.file, line, column };
}

function sortIssues(issues: PacksIssue[]): PacksIssue[] {
  return issues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}

interface CheckContext {
  readonly file: string;
  readonly loc: Locator;
  readonly issue: (code: PacksErrorCode, path: Path, message: string, key?: boolean) => PacksIssue;
}

interface BuildContext extends CheckContext {
  readonly options: LoadOptions;
}

/** The parts of a command entry its template checks read. */
interface CommandTemplates {
  readonly argv: readonly string[];
  readonly inputs?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * The argv template and input checks of one command: pushes its issues and returns the placeholders
 * that name an input. The one copy of these checks, used by `build` on a schema-valid file and by
 * {@link checkWellFormedEntries} on a file the schema rejects.
 */
function checkCommandTemplates(
  rc: CommandTemplates,
  cPath: Path,
  ctx: CheckContext,
  issues: PacksIssue[],
): TemplateRef[] {
  const { issue } = ctx;
  const refs: TemplateRef[] = [];
  const declared = rc.inputs ? Object.keys(rc.inputs) : undefined;
  rc.argv.forEach((element, ai) => {
    const at: Path = [...cPath, 'argv', ai];
    const t = parseTemplate(element);
    if (!t.ok) {
      for (const ti of t.issues) issues.push(issueInside(ctx, Code.TEMPLATE, at, ti.offset, ti.message));
      return;
    }
    for (const ref of t.template.refs()) {
      const push = (code: PacksErrorCode, message: string) =>
        issues.push(issueInside(ctx, code, at, ref.offset, message));
      if (ref.path === 'credential' || ref.path.startsWith('credential.')) {
        push(
          Code.CREDENTIAL_IN_ARGV,
          `{{${ref.path}}} puts a credential in argv, where ps and audit logs can read it; expected credentials in the pack's env only (env: { TOKEN: '{{${ref.path}}}' })`,
        );
        continue;
      }
      if (ref.form === 'untrusted') {
        push(
          Code.TEMPLATE,
          `{{untrusted ${ref.path}}} is not allowed in argv; expected {{name}} or {{name?}}`,
        );
        continue;
      }
      if (ai === 0) {
        push(
          Code.TEMPLATE,
          `argv[0] names the executable and must be literal; found the placeholder {{${ref.path}}}`,
        );
        continue;
      }
      if (ref.path.includes('.') || (declared !== undefined && !declared.includes(ref.path))) {
        push(
          Code.INPUT_MISMATCH,
          `placeholder {{${ref.path}}} names no declared input; expected one of ${listForMessage(declared ?? [])}`,
        );
        continue;
      }
      refs.push(ref);
    }
  });
  const used = new Set(refs.map((r) => r.path));
  for (const name of declared ?? []) {
    if (name === 'credential') {
      issues.push(
        issue(
          Code.INPUT_MISMATCH,
          [...cPath, 'inputs', name],
          `input name "credential" is reserved; expected another name`,
          true,
        ),
      );
    }
    if (!used.has(name)) {
      issues.push(
        issue(
          Code.INPUT_MISMATCH,
          [...cPath, 'inputs', name],
          `input "${name}" is used by no argv placeholder; expected {{${name}}} in argv, or remove the input`,
          true,
        ),
      );
    }
  }
  return refs;
}

const CREDENTIAL_CONTEXT = defineContext([{ path: 'credential.*', locations: ['env'] }]);

/**
 * The env template checks of one pack: a value may reference only `{{credential.NAME}}`, and only a
 * credential in `credentials` (the pack's `credentials_ref`). `pack` names the pack in messages. The
 * one copy of these checks, used by `build` on a schema-valid file and by
 * {@link checkWellFormedEntries} on a file the schema rejects.
 */
function checkPackEnv(
  env: Readonly<Record<string, string>>,
  credentials: readonly string[],
  pack: string,
  pPath: Path,
  ctx: CheckContext,
  issues: PacksIssue[],
): void {
  for (const [name, value] of Object.entries(env)) {
    const at: Path = [...pPath, 'env', name];
    const t = parseTemplate(value, { location: 'env', context: CREDENTIAL_CONTEXT });
    if (!t.ok) {
      for (const ti of t.issues) {
        issues.push(
          issueInside(
            ctx,
            Code.TEMPLATE,
            at,
            ti.offset,
            `env may reference only {{credential.NAME}}; ${ti.message}`,
          ),
        );
      }
      continue;
    }
    for (const ref of t.template.refs()) {
      const cred = ref.path.slice('credential.'.length);
      if (!credentials.includes(cred)) {
        issues.push(
          issueInside(
            ctx,
            Code.UNKNOWN_CREDENTIAL,
            at,
            ref.offset,
            `{{${ref.path}}} names a credential ${pack} does not declare; expected one of credentials_ref: ${listForMessage(credentials)}`,
          ),
        );
      }
    }
  }
}

function isMapObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringMap(value: unknown): value is Readonly<Record<string, string>> {
  return isMapObject(value) && Object.values(value).every((v) => typeof v === 'string');
}

/** A `credentials_ref` as the list of names it declares, or `undefined` when the value is malformed. */
function wellFormedCredentials(ref: unknown): readonly string[] | undefined {
  const names: unknown[] = ref === undefined ? [] : [ref].flat();
  return names.every((n): n is string => typeof n === 'string' && NAME_PATTERN.test(n)) ? names : undefined;
}

/**
 * Runs the template checks over a file the schema rejected, on every entry well-formed enough to
 * check. {@link checkPackEnv} runs on a pack (any map) whose `env` is a map of strings and whose
 * `credentials_ref` is absent or well-formed; {@link checkCommandTemplates} on a command entry (a
 * map) whose `id` is a valid id, whose `argv` is a list of strings, and whose `inputs` is absent or a
 * map. Anything else in the file (pack ids, overrides, agents) is left to the schema issues already
 * reported.
 */
function checkWellFormedEntries(data: unknown, ctx: CheckContext): PacksIssue[] {
  const issues: PacksIssue[] = [];
  if (!isMapObject(data) || !Array.isArray(data.command_packs)) return issues;
  data.command_packs.forEach((rp: unknown, pi) => {
    if (!isMapObject(rp)) return;
    const pPath: Path = ['command_packs', pi];
    const credentials = wellFormedCredentials(rp.credentials_ref);
    if (credentials !== undefined && isStringMap(rp.env)) {
      // A pack without a string id is still named by the path at the start of each message.
      const pack = typeof rp.id === 'string' ? `pack "${rp.id}"` : 'this pack';
      checkPackEnv(rp.env, credentials, pack, pPath, ctx, issues);
    }
    if (!Array.isArray(rp.commands)) return;
    rp.commands.forEach((rc: unknown, ci) => {
      if (!isMapObject(rc)) return;
      const { id, argv, inputs } = rc;
      if (typeof id !== 'string' || !ID_PATTERN.test(id)) return;
      if (!Array.isArray(argv) || !argv.every((a) => typeof a === 'string')) return;
      if (inputs !== undefined && !isMapObject(inputs)) return;
      checkCommandTemplates({ argv, inputs }, [...pPath, 'commands', ci], ctx, issues);
    });
  });
  return issues;
}

async function build(raw: WorkspaceFile, ctx: BuildContext): Promise<LoadResult> {
  const { file, issue, options } = ctx;
  const issues: PacksIssue[] = [];
  const warnings: PacksIssue[] = [];
  const dir = dirname(resolve(file));
  const rawPacks = raw.command_packs ?? [];
  const seenPacks = new Map<string, number>();
  const reserved = new Set(options.reservedCommandIds ?? []);
  const built: { pack: Pack; index: number; raw: RawPack }[] = [];

  rawPacks.forEach((rp, pi) => {
    const pPath: Path = ['command_packs', pi];
    if (RESERVED_PACK_IDS.includes(rp.id)) {
      issues.push(
        issue(
          Code.RESERVED_ID,
          [...pPath, 'id'],
          `pack id "${rp.id}" is reserved (${RESERVED_PACK_IDS.join(', ')}); expected another id, e.g. "${rp.id}-tools"`,
        ),
      );
    }
    const earlier = seenPacks.get(rp.id);
    if (earlier !== undefined) {
      const first = ctx.loc.at(['command_packs', earlier, 'id']);
      issues.push(
        issue(
          Code.DUPLICATE_ID,
          [...pPath, 'id'],
          `pack id "${rp.id}" is declared twice: here and at ${file}:${first.line}:${first.column}; expected unique pack ids`,
        ),
      );
      return;
    }
    seenPacks.set(rp.id, pi);
    const commandIds = rp.commands.map((c) => c.id);
    const seenCommands = new Map<string, number>();
    rp.commands.forEach((c, ci) => {
      const e = seenCommands.get(c.id);
      if (e !== undefined) {
        const first = ctx.loc.at([...pPath, 'commands', e, 'id']);
        issues.push(
          issue(
            Code.DUPLICATE_ID,
            [...pPath, 'commands', ci, 'id'],
            `command "${rp.id}.${c.id}" is declared twice: here and at ${file}:${first.line}:${first.column}; expected unique command ids in a pack`,
          ),
        );
      } else seenCommands.set(c.id, ci);
    });
    for (const key of ['permission_overrides', 'timeout_overrides'] as const) {
      for (const name of Object.keys(rp[key] ?? {})) {
        if (!commandIds.includes(name)) {
          issues.push(
            issue(
              Code.UNKNOWN_OVERRIDE,
              [...pPath, key, name],
              `${key} key "${name}" names no command of pack "${rp.id}"; expected one of ${listForMessage(commandIds)}`,
              true,
            ),
          );
        }
      }
    }
    const credentials = rp.credentials_ref === undefined ? [] : [rp.credentials_ref].flat();
    checkPackEnv(rp.env ?? {}, credentials, `pack "${rp.id}"`, pPath, ctx, issues);
    if (options.credentials) {
      for (const cred of credentials) {
        const v = options.credentials.get(cred);
        if (typeof v !== 'string' || v === '') {
          issues.push(
            issue(
              Code.UNKNOWN_CREDENTIAL,
              [...pPath, 'credentials_ref'],
              `credential "${cred}" of pack "${rp.id}" is not in the configured credential source (or is empty); add it to the host's credentials`,
            ),
          );
        }
      }
    }
    const packTier: Tier = rp.permission ?? 'cautious';
    const packTimeout = rp.timeout === undefined ? DEFAULT_TIMEOUT_MS : parseDuration(rp.timeout)!;
    const maxOutput = rp.max_output === undefined ? DEFAULT_MAX_OUTPUT_BYTES : parseByteSize(rp.max_output)!;
    const packLabel = rp.label as Label | undefined;
    const commands: PackCommand[] = [];
    rp.commands.forEach((rc, ci) => {
      const cPath: Path = [...pPath, 'commands', ci];
      const manifestId = `${rp.id}.${rc.id}`;
      if (reserved.has(manifestId)) {
        issues.push(
          issue(
            Code.DUPLICATE_ID,
            [...cPath, 'id'],
            `command "${manifestId}" collides with the host's built-in command "${manifestId}"; rename the pack or the command`,
          ),
        );
      }
      const refs = checkCommandTemplates(rc, cPath, ctx, issues);
      const used = new Set(refs.map((r) => r.path));
      const inputs: Record<string, InputSchema> = {};
      if (rc.inputs) {
        for (const [name, schema] of Object.entries(rc.inputs)) {
          inputs[name] = { ...schema, type: schema.type ?? 'string' } as InputSchema;
        }
      } else {
        for (const name of used) inputs[name] = { type: 'string' };
      }
      const required = [...new Set(refs.filter((r) => r.form === 'required').map((r) => r.path))];
      const effects: Effects = rc.effects ?? 'write';
      const overrideTimeout = rp.timeout_overrides?.[rc.id];
      const label = (rc.label as Label | undefined) ?? packLabel;
      const description = rc.description?.trim() ?? '';
      commands.push(
        Object.freeze({
          id: rc.id,
          manifestId,
          pack: rp.id,
          title: rc.title ?? (description.split('\n')[0] || manifestId),
          description,
          argv: Object.freeze([...rc.argv]),
          inputs: Object.freeze(inputs),
          required: Object.freeze(required),
          effects,
          effectsDeclared: rc.effects !== undefined,
          output: rc.output?.parse ?? 'text',
          tier: rp.permission_overrides?.[rc.id] ?? packTier,
          timeoutMs: overrideTimeout === undefined ? packTimeout : parseDuration(overrideTimeout)!,
          maxOutputBytes: maxOutput,
          scopes: Object.freeze([...new Set([...(rp.scopes ?? []), ...(rc.scopes ?? [])])]),
          ...(label ? { label } : {}),
        }),
      );
    });
    const cwd = rp.cwd === undefined ? dir : isAbsolute(rp.cwd) ? rp.cwd : resolve(dir, rp.cwd);
    built.push({
      index: pi,
      raw: rp,
      pack: Object.freeze({
        id: rp.id,
        description: rp.description ?? '',
        permission: packTier,
        cwd,
        env: Object.freeze({ ...(rp.env ?? {}) }),
        credentials: Object.freeze(credentials),
        requires: Object.freeze(
          (rp.requires ?? []).map((r) =>
            r.version === undefined ? { binary: r.binary } : { binary: r.binary, version: r.version },
          ),
        ),
        optional: rp.optional === true,
        ...(packLabel ? { label: packLabel } : {}),
        commands: Object.freeze(commands),
      }),
    });
  });

  const seenAgents = new Map<string, number>();
  (raw.agents ?? []).forEach((a, ai) => {
    const e = seenAgents.get(a.id);
    if (e !== undefined) {
      const first = ctx.loc.at(['agents', e, 'id']);
      issues.push(
        issue(
          Code.DUPLICATE_ID,
          ['agents', ai, 'id'],
          `agent id "${a.id}" is declared twice: here and at ${file}:${first.line}:${first.column}`,
        ),
      );
    } else seenAgents.set(a.id, ai);
  });

  if (issues.length > 0) return { ok: false, issues: sortIssues(issues) };

  // Requirements are probed only for a file that is otherwise sound: a probe spawns processes.
  const packs: Pack[] = [];
  const unavailable: UnavailablePack[] = [];
  const probes = new Map<string, Promise<ProbeResult>>();
  const probePath = options.path ?? process.env.PATH ?? FALLBACK_PATH;
  for (const { pack, index } of built) {
    let failure: { binary: string; reason: string; code: PacksErrorCode; at: Path } | undefined;
    if (options.probe !== false) {
      for (const [ri, req] of pack.requires.entries()) {
        let probe = probes.get(req.binary);
        if (!probe) {
          probe = probeBinary(req.binary, probePath);
          probes.set(req.binary, probe);
        }
        const result = await probe;
        const at: Path = ['command_packs', index, 'requires', ri];
        if (result.kind === 'missing') {
          failure = {
            binary: req.binary,
            reason: `${req.binary} is not installed (${result.detail})`,
            code: Code.REQUIREMENT_MISSING,
            at,
          };
        } else if (result.kind === 'failed') {
          failure = {
            binary: req.binary,
            reason: `${req.binary} could not be probed: ${result.detail}`,
            code: Code.REQUIREMENT_VERSION,
            at,
          };
        } else if (req.version !== undefined) {
          if (result.version === undefined) {
            failure = {
              binary: req.binary,
              reason: `${req.binary} --version printed no version number, so ${req.version} cannot be checked`,
              code: Code.REQUIREMENT_VERSION,
              at,
            };
          } else if (!satisfies(result.version, req.version)) {
            failure = {
              binary: req.binary,
              reason: `${req.binary} ${result.version} is installed but ${req.version} is required`,
              code: Code.REQUIREMENT_VERSION,
              at,
            };
          }
        }
        if (failure) break;
      }
    }
    if (!failure) {
      packs.push(pack);
      continue;
    }
    if (pack.optional) {
      unavailable.push({
        id: pack.id,
        binary: failure.binary,
        reason: failure.reason,
        commands: pack.commands.map((c) => c.manifestId),
      });
      warnings.push(
        issue(
          failure.code,
          failure.at,
          `optional pack "${pack.id}" left out: ${failure.reason}; its commands ${listForMessage(pack.commands.map((c) => c.manifestId))} are not offered`,
        ),
      );
    } else {
      issues.push(
        issue(
          failure.code,
          failure.at,
          `pack "${pack.id}" requires ${failure.binary}: ${failure.reason}; ${failure.code === Code.REQUIREMENT_MISSING ? 'install it' : 'install a version that satisfies the constraint'}, or mark the pack optional: true`,
        ),
      );
    }
  }

  const agents: Agent[] = [];
  const scope = { packs, unavailable };
  (raw.agents ?? []).forEach((a, ai) => {
    const grants = a.grants ?? [];
    const r = resolveGrantList(scope, grants, (gi) => {
      const p = ctx.loc.at(['agents', ai, 'grants', gi]);
      return { file, line: p.line, column: p.column, path: ['agents', ai, 'grants', gi] };
    });
    const named = (m: string) => `agent "${a.id}": ${m}`;
    if (!r.ok) {
      for (const i of r.issues) issues.push({ ...i, message: named(i.message) });
      return;
    }
    for (const w of r.warnings) warnings.push({ ...w, message: named(w.message) });
    agents.push(
      Object.freeze({
        id: a.id,
        scopes: Object.freeze([...(a.scopes ?? [])]),
        grants: Object.freeze([...grants]),
        commands: Object.freeze([...r.commands]),
      }),
    );
  });

  if (issues.length > 0) return { ok: false, issues: sortIssues(issues) };
  const sortedWarnings = sortIssues(warnings);
  const workspace: Workspace = Object.freeze({
    file,
    dir,
    packs: Object.freeze(packs),
    unavailable: Object.freeze(unavailable),
    agents: Object.freeze(agents),
    warnings: Object.freeze(sortedWarnings),
  });
  return { ok: true, workspace, warnings: sortedWarnings };
}
