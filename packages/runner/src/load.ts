// Loads a runner file: YAML with positions, the zod schema, the validation matrix, the cross-key
// rules, every template checked against the run context's allow sets, and the "every firing would
// skip" rules (TM-83). Never throws for a bad file: every problem is an issue naming file:line:column.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parseByteSize, parseDuration, RETENTION_WINDOW } from '@harness/config';
import { type Locator, parseYamlConfig } from '@harness/config/yaml';
import { describeFound as describe, valueAt as get, showPath } from '@harness/errors';
import { parseRunTemplate } from '@harness/events';
import { parse as parseTemplate, type Template, type TemplateIssue } from '@harness/tmpl';
import { Cron } from 'croner';
import type { z } from 'zod';
import { ADAPTERS } from './adapters';
import { RunnerErrorCode as Code, type RunnerErrorCode, type RunnerIssue } from './errors';
import { cell, FORBIDDEN_WHY, MATRIX_KEYS } from './matrix';
import {
  AGENT_KINDS,
  type AgentKind,
  type HarnessEntry,
  type PromptDelivery,
  runnerFileSchema,
} from './schema';
import type { Harness, HarnessTools, PromptSpec, RunnerConfig, Source, When } from './types';

/** Timeout of a one-shot run when the harness sets none: 30 minutes (agents are slow). */
export const DEFAULT_RUN_TIMEOUT_MS = 30 * 60_000;
/** Output ceiling of a run when the harness sets none: 10 MiB (stdout and stderr together). */
export const DEFAULT_RUN_MAX_OUTPUT_BYTES = 10 * 1024 * 1024;
/** Largest webhook body the receiver reads when the file sets no `max_body`: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * How long the receiver remembers an accepted webhook body when the file sets no
 * `delivery_retention`: 30 days, well past the window in which a forge offers to redeliver (GitHub:
 * 3 days), so a captured body replayed within it starts nothing.
 */
export const DEFAULT_DELIVERY_RETENTION_MS = 30 * 86_400_000;

/** Triggered and scheduled runs in flight at once when the file sets no `concurrency`. */
export const DEFAULT_CONCURRENCY = 4;

/** Where a runner file comes from: a file to read, or text already read (with the name to report). */
export type RunnerSource = { readonly file: string } | { readonly text: string; readonly file: string };

/** Options of {@link loadRunnerConfig}. */
export interface RunnerLoadOptions {
  /** A repository's own runner file: validated the same way, and may not set `untrusted_inline` (TM-125, TM-126). */
  readonly project?: boolean;
}

/** What {@link loadRunnerConfig} returns. `warnings` holds one `untrusted_inline` entry per harness that sets it. */
export type RunnerLoadResult =
  | { readonly ok: true; readonly config: RunnerConfig; readonly warnings: readonly RunnerIssue[] }
  | { readonly ok: false; readonly issues: readonly RunnerIssue[] };

type Path = readonly (string | number)[];
type Report = (code: RunnerErrorCode, path: Path, message: string, key?: boolean) => void;

const PROMPT_KEYS = ['prompt', 'prompt_file', 'prompt_template', 'prompt_template_file'] as const;
/** Events whose payloads carry no pull request or issue number (push and ref creation/deletion). */
const NUMBERLESS_EVENTS = new Set(['push', 'create', 'delete']);

function schemaIssue(issue: z.core.$ZodIssue, data: unknown, report: Report): void {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  const where = showPath(path);
  if (issue.code === 'unrecognized_keys') {
    report(Code.schema, [...path, issue.keys[0] ?? ''], `${where}: ${issue.message}`, true);
    return;
  }
  const found = get(data, path);
  const expected = issue.message.startsWith('expected') ? issue.message : `expected ${issue.message}`;
  report(
    Code.schema,
    path,
    found === undefined
      ? `${where}: missing; ${expected}`
      : `${where}: ${expected}, found ${describe(found)}`,
  );
}

/**
 * Loads and checks a runner file (YAML, or JSON). Paths in it (`prompt_file`,
 * `prompt_template_file`, `workdir`) are relative to the file's directory; prompt files are read
 * here, once, so planning a run never touches the disk.
 */
export function loadRunnerConfig(source: RunnerSource, options: RunnerLoadOptions = {}): RunnerLoadResult {
  const file = resolve(source.file);
  let text: string;
  if ('text' in source) text = source.text;
  else {
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      const why = (error as NodeJS.ErrnoException).code ?? 'read error';
      return {
        ok: false,
        issues: [
          {
            code: Code.file_unreadable,
            path: [],
            file,
            message: `cannot read the runner file (${why}); check the path given to --config`,
          },
        ],
      };
    }
  }
  const yaml = parseYamlConfig(text);
  if (!yaml.ok) {
    return {
      ok: false,
      issues: yaml.errors.map(({ line, column, message }) => ({
        code: Code.yaml_syntax,
        path: [],
        file,
        line,
        column,
        message,
      })),
    };
  }
  const { data, loc } = yaml;
  const issues: RunnerIssue[] = [];
  const report: Report = (code, path, message, key = false) => {
    const { line, column } = loc.at(path, { key });
    issues.push({ code, path, file, line, column, message });
  };
  const parsed = runnerFileSchema.safeParse(data);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) schemaIssue(issue, data, report);
    return { ok: false, issues };
  }
  const warnings: RunnerIssue[] = [];
  const config = build(parsed.data, {
    file,
    dir: dirname(file),
    loc,
    report,
    issues,
    warnings,
    project: options.project === true,
  });
  return issues.length > 0 || config === undefined ? { ok: false, issues } : { ok: true, config, warnings };
}

interface Ctx {
  readonly file: string;
  readonly dir: string;
  readonly loc: Locator;
  readonly report: Report;
  readonly issues: RunnerIssue[];
  readonly warnings: RunnerIssue[];
  readonly project: boolean;
}

function build(raw: z.output<typeof runnerFileSchema>, ctx: Ctx): RunnerConfig | undefined {
  const sources: Source[] = [];
  const seenSources = new Set<string>();
  (raw.sources ?? []).forEach((s, i) => {
    if (seenSources.has(s.id))
      ctx.report(
        Code.duplicate_id,
        ['sources', i, 'id'],
        `sources[${i}].id: "${s.id}" is declared twice; give each source its own id`,
      );
    seenSources.add(s.id);
    sources.push({
      id: s.id,
      scheme: s.scheme,
      secretEnv: s.secret_env,
      trustedActors: s.trusted_actors ?? [],
    });
  });
  const harnesses: Harness[] = [];
  const seen = new Set<string>();
  raw.harnesses.forEach((h, i) => {
    if (seen.has(h.id))
      ctx.report(
        Code.duplicate_id,
        ['harnesses', i, 'id'],
        `harnesses[${i}].id: "${h.id}" is declared twice; give each harness its own id`,
      );
    seen.add(h.id);
    const harness = buildHarness(h as HarnessEntry, i, sources, ctx);
    if (harness) harnesses.push(harness);
  });
  let listen: RunnerConfig['listen'];
  if (raw.listen !== undefined) {
    const at = raw.listen.lastIndexOf(':');
    const port = Number(raw.listen.slice(at + 1));
    const host = raw.listen.slice(0, at).replace(/^\[(.*)\]$/, '$1');
    if (port > 65535)
      ctx.report(Code.schema, ['listen'], `listen: expected a port from 0 to 65535, found ${port}`);
    listen = { host, port };
  }
  if (ctx.issues.length > 0) return undefined;
  return {
    file: ctx.file,
    ...(listen ? { listen } : {}),
    maxBodyBytes:
      raw.max_body === undefined ? DEFAULT_MAX_BODY_BYTES : (parseByteSize(raw.max_body) as number),
    deliveryRetentionMs:
      raw.delivery_retention === undefined
        ? DEFAULT_DELIVERY_RETENTION_MS
        : (parseDuration(raw.delivery_retention, RETENTION_WINDOW) as number),
    concurrency: raw.concurrency ?? DEFAULT_CONCURRENCY,
    sources,
    harnesses,
  };
}

function whenOf(h: HarnessEntry, base: Path, ctx: Ctx): When {
  const set = [
    h.resident === true ? 'resident' : undefined,
    h.schedule !== undefined ? 'schedule' : undefined,
    h.trigger !== undefined ? 'trigger' : undefined,
  ].filter((k): k is string => k !== undefined);
  if (set.length > 1) {
    ctx.report(
      Code.schema,
      [...base, set[1] as string],
      `${showPath(base)}: sets ${set.join(' and ')}; a harness runs in one way: choose one of resident, schedule or trigger`,
      true,
    );
  }
  if (h.trigger !== undefined) {
    const t = h.trigger;
    return {
      type: 'trigger',
      source: t.source,
      events: t.events,
      ...(t.actions ? { actions: t.actions } : {}),
    };
  }
  if (h.schedule !== undefined) {
    try {
      new Cron(h.schedule, { paused: true });
    } catch (error) {
      ctx.report(
        Code.invalid_schedule,
        [...base, 'schedule'],
        `${showPath([...base, 'schedule'])}: not a cron expression (${(error as Error).message}); write five fields such as "*/15 * * * *"`,
      );
    }
    return { type: 'schedule', cron: h.schedule };
  }
  return h.resident === true ? { type: 'resident' } : { type: 'manual' };
}

function templateIssues(issues: readonly TemplateIssue[], path: Path, ctx: Ctx, file?: string): void {
  for (const t of issues) {
    if (file !== undefined) {
      ctx.issues.push({
        code: Code.template,
        path,
        file,
        line: t.line,
        column: t.column,
        message: `${file}: ${t.message}`,
      });
      continue;
    }
    const { line, column } = ctx.loc.inside(path, t.offset);
    ctx.issues.push({
      code: Code.template,
      path,
      file: ctx.file,
      line,
      column,
      message: `${showPath(path)}: ${t.message}`,
    });
  }
}

function readRelative(name: string, path: Path, ctx: Ctx): string | undefined {
  const abs = isAbsolute(name) ? name : resolve(ctx.dir, name);
  try {
    return readFileSync(abs, 'utf8');
  } catch (error) {
    ctx.report(
      Code.file_unreadable,
      path,
      `${showPath(path)}: cannot read ${abs} (${(error as NodeJS.ErrnoException).code ?? 'read error'}); the path is relative to the runner file`,
    );
    return undefined;
  }
}

function promptOf(h: HarnessEntry, base: Path, ctx: Ctx): PromptSpec | undefined {
  const given = PROMPT_KEYS.filter((k) => h[k] !== undefined);
  if (given.length > 1) {
    ctx.report(
      Code.schema,
      [...base, given[1] as string],
      `${showPath(base)}: sets ${given.join(' and ')}; choose one prompt source`,
      true,
    );
    return undefined;
  }
  const inline = h.untrusted_inline === true;
  if (h.prompt !== undefined) return { kind: 'verbatim', from: 'prompt', text: h.prompt };
  if (h.prompt_file !== undefined) {
    const text = readRelative(h.prompt_file, [...base, 'prompt_file'], ctx);
    return text === undefined ? undefined : { kind: 'verbatim', from: 'prompt_file', text };
  }
  const source =
    h.prompt_template ??
    (h.prompt_template_file === undefined
      ? undefined
      : readRelative(h.prompt_template_file, [...base, 'prompt_template_file'], ctx));
  if (source === undefined) return undefined;
  // The load-time warning of untrusted_inline is collected once per harness below, not printed here.
  const result = parseRunTemplate(source, 'prompt', { untrustedInline: inline, onWarn: () => undefined });
  if (!result.ok) {
    if (h.prompt_template !== undefined) templateIssues(result.issues, [...base, 'prompt_template'], ctx);
    else
      templateIssues(
        result.issues,
        [...base, 'prompt_template_file'],
        ctx,
        resolve(ctx.dir, h.prompt_template_file as string),
      );
    return undefined;
  }
  return {
    kind: 'template',
    from: h.prompt_template !== undefined ? 'prompt_template' : 'prompt_template_file',
    template: result.template,
  };
}

function checkMatrix(h: HarnessEntry, base: Path, ctx: Ctx): void {
  for (const key of MATRIX_KEYS) {
    const c = cell(key, h.kind);
    const present = h[key] !== undefined;
    if (c === 'forbidden' && present) {
      if (h.kind === 'generic' && (PROMPT_KEYS as readonly string[]).includes(key)) {
        ctx.report(
          Code.generic_prompt,
          [...base, key],
          `${showPath(base)}: a generic harness runs sh -c and never an agent, so it takes no ${key}; to run an agent on a prompt use one of the agent kinds ${AGENT_KINDS.join(', ')}, or kind: command with an argv`,
          true,
        );
        continue;
      }
      const why = FORBIDDEN_WHY[key] ?? `${key} does not apply to a ${h.kind} harness`;
      ctx.report(
        Code.key_not_allowed,
        [...base, key],
        `${showPath(base)}: kind ${h.kind} does not take ${key} (${why}); remove it`,
        true,
      );
    }
    if (c === 'required' && !present) {
      ctx.report(
        Code.key_required,
        [...base, 'kind'],
        `${showPath(base)}: kind ${h.kind} needs ${key}; add it`,
      );
    }
  }
}

/**
 * `tools`: the workspace resolved against the runner file's directory and required to exist. The
 * matrix keeps it to the kinds that can be handed an MCP configuration for one run.
 */
function toolsOf(h: HarnessEntry, base: Path, ctx: Ctx): HarnessTools | undefined {
  if (h.tools === undefined) return undefined;
  const workspace = resolve(ctx.dir, h.tools.workspace);
  if (!existsSync(workspace)) {
    ctx.report(
      Code.file_unreadable,
      [...base, 'tools', 'workspace'],
      `${showPath([...base, 'tools', 'workspace'])}: no workspace file at ${workspace}; give the path of a workspace.yaml (relative to the runner file)`,
    );
    return undefined;
  }
  return {
    workspace,
    agent: h.tools.agent,
    ...(h.tools.max_confidentiality !== undefined ? { maxConfidentiality: h.tools.max_confidentiality } : {}),
  };
}

function buildHarness(h: HarnessEntry, i: number, sources: readonly Source[], ctx: Ctx): Harness | undefined {
  const base: Path = ['harnesses', i];
  const before = ctx.issues.length;
  checkMatrix(h, base, ctx);
  const when = whenOf(h, base, ctx);
  if (when.type === 'trigger' && !sources.some((s) => s.id === when.source)) {
    ctx.report(
      Code.unknown_source,
      [...base, 'trigger', 'source'],
      `${showPath([...base, 'trigger', 'source'])}: no source "${when.source}"; declared sources: ${sources.map((s) => s.id).join(', ') || '(none)'}`,
    );
  }
  if (ctx.project && h.untrusted_inline !== undefined) {
    ctx.report(
      Code.project_untrusted_inline,
      [...base, 'untrusted_inline'],
      `${showPath(base)}: a project file may not set untrusted_inline; only the operator's own runner file may put free text in a prompt`,
      true,
    );
  }
  if (ctx.issues.length > before) return undefined;
  const prompt = promptOf(h, base, ctx);
  const isAgent = (AGENT_KINDS as readonly string[]).includes(h.kind);
  if (isAgent) checkAgent(h, base, prompt, ctx);
  if (h.untrusted_inline === true && prompt?.kind !== 'template') {
    ctx.report(
      Code.schema,
      [...base, 'untrusted_inline'],
      `${showPath(base)}: untrusted_inline only applies to a prompt_template or prompt_template_file; remove it`,
      true,
    );
  }
  let argvTemplates: Template[] | undefined;
  let delivery: PromptDelivery | undefined = isAgent && prompt !== undefined ? 'argv' : undefined;
  if (h.kind === 'command' && h.argv !== undefined) {
    argvTemplates = argvOf(h.argv, base, ctx);
    delivery = deliveryOf(h, argvTemplates, prompt !== undefined || h.prompt_file !== undefined, base, ctx);
  }
  const tools = toolsOf(h, base, ctx);
  if (ctx.issues.length > before) return undefined;
  checkAlwaysSkips(h, base, prompt, argvTemplates, when, sources, ctx);
  if (h.untrusted_inline === true) {
    const { line, column } = ctx.loc.at([...base, 'untrusted_inline']);
    ctx.warnings.push({
      code: Code.untrusted_inline,
      path: [...base, 'untrusted_inline'],
      file: ctx.file,
      line,
      column,
      message: `harness ${h.id}: untrusted_inline is on: free text from outside (issue titles, comment bodies) may be placed in its prompt inside the untrusted fence; prefer pointing the agent at {{event.file}}`,
    });
  }
  if (ctx.issues.length > before) return undefined;
  const resident = when.type === 'resident';
  return {
    id: h.id,
    kind: h.kind,
    when,
    ...(h.argv !== undefined ? { argv: h.argv } : {}),
    ...(argvTemplates !== undefined ? { argvTemplates } : {}),
    args: h.args ?? [],
    ...(h.shell !== undefined ? { shell: h.shell } : {}),
    ...(h.transcripts !== undefined ? { transcripts: h.transcripts } : {}),
    ...(tools !== undefined ? { tools } : {}),
    ...(prompt !== undefined ? { prompt } : {}),
    ...(delivery !== undefined ? { delivery } : {}),
    untrustedInline: h.untrusted_inline === true,
    ...(h.model !== undefined ? { model: h.model } : {}),
    workdir: h.workdir === undefined ? ctx.dir : resolve(ctx.dir, h.workdir),
    env: h.env ?? {},
    envInherit: h.env_inherit ?? [],
    timeoutMs:
      h.timeout !== undefined
        ? (parseDuration(h.timeout) as number)
        : resident
          ? Number.POSITIVE_INFINITY
          : DEFAULT_RUN_TIMEOUT_MS,
    maxOutputBytes:
      h.max_output !== undefined ? (parseByteSize(h.max_output) as number) : DEFAULT_RUN_MAX_OUTPUT_BYTES,
  };
}

function checkAgent(h: HarnessEntry, base: Path, prompt: PromptSpec | undefined, ctx: Ctx): void {
  const adapter = ADAPTERS[h.kind as AgentKind];
  const hasPrompt = PROMPT_KEYS.some((k) => h[k] !== undefined);
  if (h.resident === true && hasPrompt) {
    ctx.report(
      Code.schema,
      [...base, 'resident'],
      `${showPath(base)}: a resident ${h.kind} harness runs the agent interactively and takes no prompt; remove the prompt or resident`,
      true,
    );
  }
  if (h.resident !== true && !hasPrompt) {
    ctx.report(
      Code.key_required,
      [...base, 'kind'],
      `${showPath(base)}: a ${h.kind} harness that is not resident runs one prompt (${adapter.exe} ${adapter.oneShot('<prompt>', undefined).join(' ')}); add prompt, prompt_file, prompt_template or prompt_template_file`,
    );
  }
  if (h.args !== undefined && h.resident !== true) {
    ctx.report(
      Code.key_not_allowed,
      [...base, 'args'],
      `${showPath(base)}: args are appended to ${adapter.exe} for a resident run only; remove args or set resident: true`,
      true,
    );
  }
  void prompt;
}

function argvOf(argv: readonly string[], base: Path, ctx: Ctx): Template[] {
  const zero = parseTemplate(argv[0] as string);
  if (!zero.ok || zero.template.refs().length > 0 || argv[0]?.includes('{{')) {
    ctx.report(
      Code.template,
      [...base, 'argv', 0],
      `${showPath([...base, 'argv', 0])}: the executable is used as written and never rendered; remove the placeholder from argv[0]`,
    );
  }
  const out: Template[] = [];
  argv.slice(1).forEach((element, j) => {
    const path = [...base, 'argv', j + 1];
    const result = parseRunTemplate(element, 'argv');
    if (!result.ok) templateIssues(result.issues, path, ctx);
    else out.push(result.template);
  });
  return out;
}

function deliveryOf(h: HarnessEntry, argv: readonly Template[], hasPrompt: boolean, base: Path, ctx: Ctx) {
  const refs = argv.flatMap((t, j) => t.refs().map((r) => ({ ...r, index: j + 1 })));
  const promptRef = refs.find((r) => r.path === 'prompt');
  const fileRef = refs.find((r) => r.path === 'prompt_file');
  const delivery = h.prompt_delivery ?? (hasPrompt && promptRef ? 'argv' : undefined);
  if (!hasPrompt) {
    if (h.prompt_delivery !== undefined)
      ctx.report(
        Code.schema,
        [...base, 'prompt_delivery'],
        `${showPath(base)}: prompt_delivery is set but there is no prompt; add one or remove prompt_delivery`,
        true,
      );
    const ref = promptRef ?? fileRef;
    if (ref)
      ctx.report(
        Code.template,
        [...base, 'argv', ref.index],
        `${showPath([...base, 'argv', ref.index])}: {{${ref.path}}} needs a prompt; add prompt, prompt_file, prompt_template or prompt_template_file`,
      );
    return undefined;
  }
  if (delivery === undefined) {
    ctx.report(
      Code.key_required,
      [...base, 'kind'],
      `${showPath(base)}: the prompt has no way in; set prompt_delivery (stdin or file), or put "{{prompt}}" in an argv element for argv delivery`,
    );
    return undefined;
  }
  if (promptRef && delivery !== 'argv') {
    ctx.report(
      Code.template,
      [...base, 'argv', promptRef.index],
      `${showPath([...base, 'argv', promptRef.index])}: {{prompt}} is bound only with prompt_delivery: argv, and this harness uses ${delivery}; remove it from argv`,
    );
  }
  if (fileRef && delivery !== 'file') {
    ctx.report(
      Code.template,
      [...base, 'argv', fileRef.index],
      `${showPath([...base, 'argv', fileRef.index])}: {{prompt_file}} is bound only with prompt_delivery: file, and this harness uses ${delivery}; remove it or set prompt_delivery: file`,
    );
  }
  if (delivery === 'argv' && !promptRef) {
    ctx.report(
      Code.template,
      [...base, 'argv'],
      `${showPath(base)}: prompt_delivery: argv needs an argv element that is exactly "{{prompt}}" or contains it`,
    );
  }
  return delivery;
}

/** TM-83: refuse a harness on which every firing would skip with template_unresolved. */
function checkAlwaysSkips(
  h: HarnessEntry,
  base: Path,
  prompt: PromptSpec | undefined,
  argv: readonly Template[] | undefined,
  when: When,
  sources: readonly Source[],
  ctx: Ctx,
): void {
  const required = [...(argv ?? []), ...(prompt?.kind === 'template' ? [prompt.template] : [])]
    .flatMap((t) => t.refs())
    .filter((r) => r.form === 'required');
  const eventRef = required.find((r) => r.path.startsWith('event.'));
  if (eventRef && when.type !== 'trigger') {
    ctx.report(
      Code.always_skips,
      base,
      `${showPath(base)}: {{${eventRef.path}}} is required but harness ${h.id} has no trigger, so every run would skip (template_unresolved); add a trigger, or write {{${eventRef.path}?}}`,
    );
    return;
  }
  if (when.type !== 'trigger') return;
  const src = sources.find((s) => s.id === when.source);
  if (required.some((r) => r.path === 'event.actor') && src !== undefined && src.trustedActors.length === 0) {
    ctx.report(
      Code.always_skips,
      [...base, 'trigger'],
      `${showPath(base)}: {{event.actor}} is required but source ${src.id} lists no trusted_actors, so it is never set and every run would skip; add trusted_actors to the source, or write {{event.actor?}}`,
    );
  }
  if (required.some((r) => r.path === 'event.number') && when.events.every((e) => NUMBERLESS_EVENTS.has(e))) {
    ctx.report(
      Code.always_skips,
      [...base, 'trigger', 'events'],
      `${showPath(base)}: {{event.number}} is required but ${when.events.join(', ')} deliveries carry no number, so every run would skip; trigger on pull_request or issues, or write {{event.number?}}`,
    );
  }
}
