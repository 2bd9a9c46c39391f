// The run context that templates read (seed 004, "Context paths"; origins.md "Template grammar"): every
// reachable path in one table, each with the locations it may appear in, so tmpl refuses at load what
// the seed says must be a load error.
import {
  type ContextDeclaration,
  defineContext,
  type Location,
  type ParseResult,
  type PathSpec,
  parse,
  type WarnHandler,
} from '@harness/tmpl';
import type { LoadedEnvelope } from './envelope';
import { formatTimestamp } from './envelope';
import { EventsError, EventsErrorCode } from './errors';
import type { Typed, Untrusted } from './extract';
import { UNTRUSTED_FIELDS } from './tables';

/** Who supplies a path's value. */
export type Supplier = 'operator' | 'daemon' | 'typed' | 'untrusted';

/** One row of the run-context table. */
export interface RunContextPath {
  /** Dotted path; `*` is one segment of any name. */
  readonly path: string;
  readonly supplier: Supplier;
  /** Where `{{path}}` / `{{path?}}` may appear. Untrusted paths appear nowhere outside the fence. */
  readonly locations: readonly Location[];
  readonly description: string;
}

const BOTH: readonly Location[] = ['argv', 'prompt'];

/**
 * The run-context table: every path a harness argv element or prompt template may reference.
 *
 * No path is allowed in `env` (seed 004 has argv, prompt and fence locations only), `prompt` and
 * `prompt_file` are argv-only (a prompt cannot contain itself or name its own file), and the free-text
 * paths are `untrustedOnly`: legal only as `{{untrusted path}}` in a prompt with `untrusted_inline`.
 * Nothing here reaches `webhook.body`: templates read the envelope's `typed`, never the raw payload.
 */
export const runContextPaths: readonly RunContextPath[] = [
  { path: 'harness.name', supplier: 'operator', locations: BOTH, description: 'The harness name.' },
  {
    path: 'harness.workdir',
    supplier: 'operator',
    locations: BOTH,
    description: 'The harness working directory.',
  },
  {
    path: 'model',
    supplier: 'operator',
    locations: BOTH,
    description: 'The configured model, e.g. provider/id.',
  },
  {
    path: 'prompt',
    supplier: 'operator',
    locations: ['argv'],
    description: 'The whole prompt (argv delivery).',
  },
  { path: 'run.id', supplier: 'daemon', locations: BOTH, description: 'The run id.' },
  {
    path: 'run.trigger',
    supplier: 'daemon',
    locations: BOTH,
    description: 'schedule, catch_up, manual, channel or webhook.',
  },
  {
    path: 'run.source',
    supplier: 'daemon',
    locations: BOTH,
    description: 'What started the run, e.g. webhook.gitea-pr.',
  },
  {
    path: 'run.started_at',
    supplier: 'daemon',
    locations: BOTH,
    description: 'Start time, RFC 3339 UTC with whole seconds: 2026-09-22T05:10:00Z.',
  },
  { path: 'run.date', supplier: 'daemon', locations: BOTH, description: 'Start date in UTC: 2026-09-22.' },
  {
    path: 'prompt_file',
    supplier: 'daemon',
    locations: ['argv'],
    description: 'The prompt file (file delivery).',
  },
  {
    path: 'event.file',
    supplier: 'daemon',
    locations: BOTH,
    description: 'The envelope file (HARNESS_EVENT_FILE).',
  },
  { path: 'event.id', supplier: 'daemon', locations: BOTH, description: "The envelope's event_id." },
  {
    path: 'event.kind',
    supplier: 'daemon',
    locations: BOTH,
    description: "The envelope's kind, e.g. webhook.",
  },
  { path: 'event.source', supplier: 'daemon', locations: BOTH, description: "The envelope's source." },
  {
    path: 'event.received_at',
    supplier: 'daemon',
    locations: BOTH,
    description: "The envelope's received_at.",
  },
  {
    path: 'event.name',
    supplier: 'typed',
    locations: BOTH,
    description: 'The event name, e.g. pull_request.',
  },
  { path: 'event.action', supplier: 'typed', locations: BOTH, description: 'The action, e.g. opened.' },
  { path: 'event.repo', supplier: 'typed', locations: BOTH, description: 'owner/name.' },
  { path: 'event.number', supplier: 'typed', locations: BOTH, description: 'Pull request or issue number.' },
  {
    path: 'event.url',
    supplier: 'typed',
    locations: BOTH,
    description: 'https web address on the repository host.',
  },
  { path: 'event.sha', supplier: 'typed', locations: BOTH, description: 'Commit sha (40 or 64 hex).' },
  {
    path: 'event.actor',
    supplier: 'typed',
    locations: BOTH,
    description: 'The sender, only when a trusted actor.',
  },
  {
    path: 'event.meta.*',
    supplier: 'typed',
    locations: BOTH,
    description: 'Small identifiers, see docs/events.md.',
  },
  ...UNTRUSTED_FIELDS.map(
    (field): RunContextPath => ({
      path: `event.${field}`,
      supplier: 'untrusted',
      locations: ['prompt'],
      description: `Free text (${field}): fence only.`,
    }),
  ),
];

/** The run-context table compiled for `@harness/tmpl` (`parse(src, { location, context: runContext })`). */
export const runContext: ContextDeclaration = defineContext(
  runContextPaths.map(
    (row): PathSpec => ({
      path: row.path,
      locations: row.locations,
      description: row.description,
      ...(row.supplier === 'untrusted' ? { untrustedOnly: true } : {}),
    }),
  ),
);

/**
 * The allow sets, as lists of path patterns: what `{{path}}`/`{{path?}}` may name in an argv element
 * and in a prompt template, and what `{{untrusted path}}` may name (any prompt path: fencing a trusted
 * value only makes it inert).
 */
export const allowSets: Readonly<{
  argv: readonly string[];
  prompt: readonly string[];
  fence: readonly string[];
}> = {
  argv: runContextPaths
    .filter((r) => r.supplier !== 'untrusted' && r.locations.includes('argv'))
    .map((r) => r.path),
  prompt: runContextPaths
    .filter((r) => r.supplier !== 'untrusted' && r.locations.includes('prompt'))
    .map((r) => r.path),
  fence: runContextPaths.filter((r) => r.locations.includes('prompt')).map((r) => r.path),
};

/** Options of {@link parseRunTemplate}. */
export interface RunTemplateOptions {
  /** `untrusted_inline` of the harness; default `false`. Only a prompt may use it. */
  untrustedInline?: boolean;
  onWarn?: WarnHandler;
}

/**
 * Parses one harness template at config load and checks it against the run context's allow set for
 * `location` (`argv` for each argv element, `prompt` for a prompt template). Returns tmpl's result.
 */
export function parseRunTemplate(
  source: string,
  location: 'argv' | 'prompt',
  options: RunTemplateOptions = {},
): ParseResult {
  return parse(source, {
    location,
    context: runContext,
    ...(options.untrustedInline !== undefined ? { untrustedInline: options.untrustedInline } : {}),
    ...(options.onWarn !== undefined ? { onWarn: options.onWarn } : {}),
  });
}

/** The values of `run.trigger`. */
export const RUN_TRIGGERS = ['schedule', 'catch_up', 'manual', 'channel', 'webhook'] as const;
/** One of {@link RUN_TRIGGERS}. */
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

/** What {@link buildRenderContext} assembles a render context from. */
export interface RenderContextInput {
  /** Operator values from the harness configuration. */
  harness?: { name?: string; workdir?: string };
  model?: string;
  /** The prompt, bound only for argv delivery. */
  prompt?: string;
  /** The prompt file, bound only for file delivery. */
  promptFile?: string;
  /** The run request. */
  run?: { id: string; trigger: RunTrigger; source?: string; startedAt?: Date };
  /** The event of a triggered run: its envelope file and what `buildEnvelope`/`parseEnvelope` returned. */
  event?: LoadedEnvelope & { file?: string };
  /**
   * Whether the harness set `untrusted_inline`. Only then are the free-text fields put in the context
   * (for `{{untrusted …}}`); otherwise a fence renders an empty block. Default `false`.
   */
  untrustedInline?: boolean;
}

/** The nested object a render context is: `{ harness, model, prompt, prompt_file, run, event }`. */
export type RunRenderContext = { readonly [key: string]: unknown };

function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== undefined) target[key] = value;
}

function nonEmpty(target: Record<string, unknown>): Record<string, unknown> | undefined {
  return Object.keys(target).length > 0 ? target : undefined;
}

/**
 * Builds the object that tmpl's `render`, `renderArgv` and fence read, from the harness, the run
 * request and the event's extraction. Typed values come from `event.extraction.typed` (the one
 * extraction the envelope stores), daemon values from the envelope header; the raw body is never
 * copied in. Absent values are absent keys, so `{{x?}}` renders empty and `{{x}}` is unresolved.
 *
 * Throws {@link EventsError} `invalid_context` for a `run.trigger` outside the five values.
 */
export function buildRenderContext(input: RenderContextInput): RunRenderContext {
  const out: Record<string, unknown> = {};
  const harness: Record<string, unknown> = {};
  put(harness, 'name', input.harness?.name);
  put(harness, 'workdir', input.harness?.workdir);
  put(out, 'harness', nonEmpty(harness));
  put(out, 'model', input.model);
  put(out, 'prompt', input.prompt);
  put(out, 'prompt_file', input.promptFile);

  if (input.run !== undefined) {
    if (!(RUN_TRIGGERS as readonly string[]).includes(input.run.trigger)) {
      throw new EventsError(
        EventsErrorCode.invalid_context,
        `Invalid run.trigger: expected one of ${RUN_TRIGGERS.join(', ')}.`,
      );
    }
    const started = input.run.startedAt;
    const run: Record<string, unknown> = { id: input.run.id, trigger: input.run.trigger };
    put(run, 'source', input.run.source);
    if (started !== undefined) {
      const stamp = formatTimestamp(started);
      run.started_at = stamp;
      run.date = stamp.slice(0, 10);
    }
    out.run = run;
  }

  if (input.event !== undefined) {
    const { envelope, extraction } = input.event;
    const event: Record<string, unknown> = {};
    put(event, 'file', input.event.file);
    event.id = envelope.event_id;
    event.kind = envelope.kind;
    event.source = envelope.source;
    event.received_at = envelope.received_at;
    copyTyped(event, extraction.typed);
    if (input.untrustedInline === true) copyUntrusted(event, extraction.untrusted);
    out.event = event;
  }
  return out;
}

function copyTyped(event: Record<string, unknown>, typed: Typed): void {
  put(event, 'name', typed.name);
  put(event, 'action', typed.action);
  put(event, 'repo', typed.repo);
  put(event, 'number', typed.number);
  put(event, 'url', typed.url);
  put(event, 'sha', typed.sha);
  put(event, 'actor', typed.actor);
  if (typed.meta !== undefined) event.meta = { ...typed.meta };
}

function copyUntrusted(event: Record<string, unknown>, untrusted: Untrusted): void {
  for (const field of UNTRUSTED_FIELDS) put(event, field, untrusted[field]);
}
