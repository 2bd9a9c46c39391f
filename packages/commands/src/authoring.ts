import { createHash } from 'node:crypto';
import { authorize } from '@harness/ifc';
import type { AuthoringConfig } from './config';
import { createHostClient } from './host/client';
import type { CommandAnswer, HostClient, RunOutcome, RunRequest } from './host/types';
import { LIMITS } from './limits';
import { type PatternResolver, resolvePatternToken } from './pattern';
import type { RunState } from './run';
import { cutId } from './shape';
import type { HarnessTool, JsonSchema, ToolContext, ToolResult } from './tool';

/** The reference kinds a component `ref` may start with (seed 001). */
export const REF_PREFIXES = [
  'page:',
  'artifact:',
  'url:',
  'person:',
  'thread:',
  'moment:',
  'loom:',
  'wish:',
  'intention:',
  'chat:',
  'run:',
] as const;

/** The names of the three Loom authoring tools. */
export const LOOM_TOOL_NAMES = ['loom_compose', 'loom_inspect', 'loom_authoring_context'] as const;

/** Host refusal codes relayed to the model, each with fixed, bounded recovery guidance. */
export const ALLOWLISTED_REFUSALS: Readonly<Record<string, string>> = {
  version_conflict:
    'The loom changed since you read it. Inspect it with loom_inspect and reconsider before composing again.',
  request_conflict:
    'This request_id already names a different committed composition. Recover its receipt with loom_authoring_context before deciding whether any new work is needed.',
  not_found: 'No loom has that id. Check the id; loom_authoring_context lists the looms this run composed.',
  forbidden: 'The host did not grant this to the run. Do not retry; tell the person it needs their grant.',
  refused: 'The host refused this. Do not retry; tell the person what you tried.',
  'bad-args': 'The host rejected the arguments. Check them against the tool description and call again.',
  unknown_command: 'This host does not offer Loom authoring. Tell the person the host needs a newer Loom.',
};

const UNCERTAIN_GUIDANCE =
  'The outcome is uncertain: the composition may have been committed. Retry the identical request with the same request_id and the same arguments to recover its receipt.';
const HOST_ERROR_GUIDANCE =
  'The host could not complete this. Nothing is known to have changed; try again later.';
const HISTORY_NOTE =
  'These receipts are history: they are not work done in this turn, they never select a write target, and a receipt does not attest that anything rendered.';

/** Host-side evidence of a tool call, kept on the run and never shown to the model. */
export interface ToolArtifact {
  tool: string;
  outputId: string;
  /** The run id of the turn that made the call. */
  runId: string;
  data: Record<string, unknown>;
}

const artifactsByRun = new WeakMap<RunState, ToolArtifact[]>();

/** The host-side artifacts recorded for a run (canonical references, verified receipts). */
export function runArtifacts(run: RunState): readonly ToolArtifact[] {
  return artifactsByRun.get(run) ?? [];
}

function recordArtifact(run: RunState, artifact: ToolArtifact): void {
  const list = artifactsByRun.get(run) ?? [];
  list.push(artifact);
  artifactsByRun.set(run, list);
}

/** Options of {@link createLoomAuthoringTools}. */
export interface LoomAuthoringToolsOptions {
  /** The authoring configuration; without it the three tools are absent (unless `alwaysRegister`). */
  config: AuthoringConfig | undefined;
  /** Resolves held Pattern Instance tokens; without one, `pattern_token` components are refused. */
  resolver?: PatternResolver;
  /** Keep the tools present without a configuration; each call answers `not_configured`. */
  alwaysRegister?: boolean;
  /** The host client to use instead of the one the configuration names. */
  client?: HostClient;
}

/** Context the authoring tools read beyond {@link ToolContext}. */
export interface AuthoringContext extends ToolContext {
  /**
   * An interactive turn: its own `loomId` binds context reads, and a turn without one clears the
   * configuration's `boundLoomId`. Absent for a batch run.
   */
  turn?: { loomId?: string | undefined; sessionId?: string | undefined } | undefined;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/**
 * The receipt namespace of a direct interactive call: the configured run identity joined with a
 * SHA-256 of it and the stable session id, so each session's receipts are its own and stable
 * across turns. At most 128 characters.
 */
export function directSessionRunId(runId: string, sessionId: string): string {
  const digest = createHash('sha256').update(`${runId}\n${sessionId}`, 'utf8').digest('hex').slice(0, 32);
  return `${runId.slice(0, 128 - 33)}.${digest}`;
}

function refused(
  run: RunState,
  code: string,
  guidance: string,
  extra: Record<string, unknown> = {},
): ToolResult {
  return { outputId: run.mintOutputId(), status: 'refused', code, guidance, ...extra };
}

function clientFor(
  config: AuthoringConfig | undefined,
  base: HostClient | undefined,
  ctx: AuthoringContext,
): HostClient | undefined {
  if (!config) return base;
  const sessionId = ctx.turn?.sessionId;
  if (config.transport.kind === 'direct' && sessionId !== undefined && base === undefined) {
    return createHostClient({
      ...config,
      transport: { ...config.transport, runId: directSessionRunId(config.transport.runId, sessionId) },
    });
  }
  return base ?? createHostClient(config);
}

async function send(client: HostClient, req: RunRequest, ctx: ToolContext): Promise<RunOutcome> {
  try {
    return await client.run(req, { jobId: ctx.jobId, signal: ctx.signal });
  } catch {
    return { kind: 'lost' };
  }
}

function gate(
  run: RunState,
  tool: string,
  effect: 'read' | 'write',
  ctx: ToolContext,
): ToolResult | undefined {
  const d = authorize({ mode: run.mode, slot: ctx.slot ?? 'absent', toolEffect: effect, tool });
  run.policyTrace.push({ tool, ...d });
  if (d.allowed) return undefined;
  return refused(run, 'not_authorized', `The run's policy does not let this task call ${tool}.`, {
    reasonCode: d.reasonCode,
  });
}

/** Reads a receipt, keeping only its documented fields; `undefined` when malformed. */
function readReceipt(v: unknown): Record<string, unknown> | undefined {
  if (!isRecord(v)) return undefined;
  const strs = (x: unknown) => Array.isArray(x) && x.every((s) => typeof s === 'string');
  if (
    typeof v.loom_id !== 'string' ||
    typeof v.request_id !== 'string' ||
    typeof v.version !== 'number' ||
    typeof v.created !== 'boolean' ||
    !strs(v.component_ids) ||
    !strs(v.operation_ids) ||
    !strs(v.displaced)
  ) {
    return undefined;
  }
  const r: Record<string, unknown> = {
    loom_id: cutId(v.loom_id),
    request_id: cutId(v.request_id),
    version: v.version,
    created: v.created,
    component_ids: (v.component_ids as string[]).map((s) => cutId(s)),
    operation_ids: (v.operation_ids as string[]).map((s) => cutId(s)),
    displaced: (v.displaced as string[]).map((s) => cutId(s)),
  };
  if (typeof v.committed_at === 'string') r.committed_at = cutId(v.committed_at, 64);
  return r;
}

/** A loom view without references or renderer internals; `piece` reads as `pattern`. */
function readView(v: unknown): Record<string, unknown> | undefined {
  if (
    !isRecord(v) ||
    typeof v.loom_id !== 'string' ||
    typeof v.version !== 'number' ||
    !Array.isArray(v.components)
  )
    return undefined;
  const components = v.components.filter(isRecord).map((c) => {
    const kind = typeof c.kind === 'string' ? (c.kind === 'piece' ? 'pattern' : c.kind) : 'unknown';
    const out: Record<string, unknown> = { id: typeof c.id === 'string' ? cutId(c.id) : null, kind };
    if (typeof c.title === 'string') out.title = c.title.slice(0, 200);
    if (typeof c.stage === 'string') out.stage = cutId(c.stage);
    if (typeof c.position === 'number') out.position = c.position;
    return out;
  });
  const layout = isRecord(v.layout) ? v.layout : {};
  return {
    loom_id: cutId(v.loom_id),
    version: v.version,
    components,
    layout: {
      stages: isRecord(layout.stages) ? layout.stages : {},
      shelf: Array.isArray(layout.shelf) ? layout.shelf : [],
      focus: typeof layout.focus === 'string' ? layout.focus : null,
    },
  };
}

function notSent(run: RunState, code: string): ToolResult {
  if (code === 'cancelled')
    return {
      outputId: run.mintOutputId(),
      status: 'cancelled',
      landed: 'no',
      guidance: 'The turn was cancelled before the host was called; nothing was written.',
    };
  return {
    outputId: run.mintOutputId(),
    status: 'failed',
    landed: 'no',
    code: 'host_unavailable',
    guidance: HOST_ERROR_GUIDANCE,
  };
}

function refusalOf(run: RunState, answer: CommandAnswer): ToolResult {
  const guidance = ALLOWLISTED_REFUSALS[answer.code];
  if (guidance !== undefined) return refused(run, answer.code, guidance);
  // Anything else is a raw host error: its text never reaches the model.
  if (answer.mayHaveLanded)
    return { outputId: run.mintOutputId(), status: 'uncertain', guidance: UNCERTAIN_GUIDANCE };
  return {
    outputId: run.mintOutputId(),
    status: 'failed',
    code: 'host_error',
    guidance: HOST_ERROR_GUIDANCE,
  };
}

// ---------------------------------------------------------------------------------------------

const COMPONENT_KEYS = new Set(['ref', 'pattern_token', 'title', 'stage', 'focus']);
const COMPOSE_KEYS = new Set(['request_id', 'loom_id', 'expected_version', 'components']);

type ComposeParse =
  | {
      ok: true;
      value: {
        requestId: string;
        loomId?: string;
        expectedVersion?: number;
        components: Record<string, unknown>[];
      };
    }
  | { ok: false; message: string };

function parseCompose(input: unknown): ComposeParse {
  if (!isRecord(input))
    return {
      ok: false,
      message: 'loom_compose takes { request_id, loom_id?, expected_version?, components }.',
    };
  for (const k of Object.keys(input))
    if (!COMPOSE_KEYS.has(k)) return { ok: false, message: `Unknown field "${cutId(k, 64)}".` };
  const { request_id, loom_id, expected_version, components } = input;
  if (typeof request_id !== 'string' || !ID.test(request_id)) {
    return {
      ok: false,
      message:
        'request_id is required: one key (letters, digits, _.:-) for one logical composition, kept on retry.',
    };
  }
  if (loom_id !== undefined && (typeof loom_id !== 'string' || !ID.test(loom_id)))
    return { ok: false, message: 'loom_id must be a loom id.' };
  if (expected_version !== undefined) {
    if (loom_id === undefined)
      return { ok: false, message: 'expected_version guards an existing loom: give loom_id with it.' };
    if (
      typeof expected_version !== 'number' ||
      !Number.isSafeInteger(expected_version) ||
      expected_version < 1
    ) {
      return { ok: false, message: 'expected_version must be a positive integer.' };
    }
  }
  if (!Array.isArray(components) || components.length < 1 || components.length > LIMITS.maxComponents) {
    return { ok: false, message: `components must hold 1 to ${LIMITS.maxComponents} components.` };
  }
  for (const [i, c] of components.entries()) {
    if (!isRecord(c)) return { ok: false, message: `components[${i}] must be an object.` };
    for (const k of Object.keys(c))
      if (!COMPONENT_KEYS.has(k))
        return { ok: false, message: `components[${i}] has an unknown field "${cutId(k, 64)}".` };
    const hasRef = c.ref !== undefined;
    const hasToken = c.pattern_token !== undefined;
    if (hasRef === hasToken)
      return { ok: false, message: `components[${i}] needs exactly one of ref and pattern_token.` };
    if (
      hasRef &&
      (typeof c.ref !== 'string' ||
        !REF_PREFIXES.some((p) => (c.ref as string).startsWith(p)) ||
        (c.ref as string).length > 2048)
    ) {
      return {
        ok: false,
        message: `components[${i}].ref must start with one of ${REF_PREFIXES.join(' ')}; a pattern is named by pattern_token.`,
      };
    }
    if (
      hasToken &&
      (typeof c.pattern_token !== 'string' || c.pattern_token.length === 0 || c.pattern_token.length > 512)
    ) {
      return { ok: false, message: `components[${i}].pattern_token must be a held token.` };
    }
    if (
      c.title !== undefined &&
      (typeof c.title !== 'string' || c.title.length === 0 || c.title.length > 200)
    )
      return { ok: false, message: `components[${i}].title must be 1-200 characters.` };
    if (c.stage !== undefined && typeof c.stage !== 'string')
      return { ok: false, message: `components[${i}].stage must be a stage name.` };
    if (c.focus !== undefined && typeof c.focus !== 'boolean')
      return { ok: false, message: `components[${i}].focus must be true or false.` };
  }
  const value: {
    requestId: string;
    loomId?: string;
    expectedVersion?: number;
    components: Record<string, unknown>[];
  } = {
    requestId: request_id,
    components: components as Record<string, unknown>[],
  };
  if (typeof loom_id === 'string') value.loomId = loom_id;
  if (typeof expected_version === 'number') value.expectedVersion = expected_version;
  return { ok: true, value };
}

async function compose(
  input: unknown,
  ctx: AuthoringContext,
  opts: LoomAuthoringToolsOptions,
): Promise<ToolResult> {
  const run = ctx.run;
  const g = gate(run, 'loom_compose', 'write', ctx);
  if (g) return g;
  const client = clientFor(opts.config, opts.client, ctx);
  if (!client)
    return {
      outputId: run.mintOutputId(),
      status: 'failed',
      landed: 'no',
      code: 'not_configured',
      guidance: 'Loom authoring is not configured for this run.',
    };
  const parsed = parseCompose(input);
  if (!parsed.ok) return refused(run, 'invalid_input', parsed.message);
  const p = parsed.value;
  // Every token is resolved and checked before anything is written.
  const components: Record<string, unknown>[] = [];
  const canonical: string[] = [];
  for (const [i, c] of p.components.entries()) {
    const out: Record<string, unknown> = {};
    if (typeof c.pattern_token === 'string') {
      const r = await resolvePatternToken(opts.resolver, c.pattern_token);
      if (!r.ok) {
        return refused(
          run,
          r.code,
          `components[${i}].pattern_token is not a held handle to a whole Pattern Instance in this session's space; use a token you were given for the instance.`,
        );
      }
      out.pattern_ref = r.ref;
      canonical.push(r.ref);
    } else {
      out.ref = c.ref;
    }
    if (c.title !== undefined) out.title = c.title;
    if (c.stage !== undefined) out.stage = c.stage;
    if (c.focus !== undefined) out.focus = c.focus;
    components.push(out);
  }
  if (ctx.signal?.aborted) return notSent(run, 'cancelled');
  const args: Record<string, unknown> = { request_id: p.requestId, components };
  if (p.loomId !== undefined) args.loom_id = p.loomId;
  if (p.expectedVersion !== undefined) args.expected_version = p.expectedVersion;
  // Started: the call settles whatever happens to the turn, and nothing pretends to roll it back.
  const outcome = await send(client, { command: 'loom.compose', args }, ctx);
  const cancelledDuring = ctx.signal?.aborted === true;
  if (outcome.kind === 'not_sent') return notSent(run, outcome.code);
  if (outcome.kind === 'lost')
    return { outputId: run.mintOutputId(), status: 'uncertain', guidance: UNCERTAIN_GUIDANCE };
  const answer = outcome.answer;
  if (!answer.ok) return refusalOf(run, answer);
  const body = answer.body;
  const receipt = isRecord(body) ? readReceipt(body.receipt) : undefined;
  if (
    !isRecord(body) ||
    !receipt ||
    typeof body.replayed !== 'boolean' ||
    typeof body.current_version !== 'number' ||
    !Array.isArray(body.displaced) ||
    !body.displaced.every((d) => typeof d === 'string')
  ) {
    return { outputId: run.mintOutputId(), status: 'uncertain', guidance: UNCERTAIN_GUIDANCE };
  }
  const replayed = body.replayed;
  const result: ToolResult = {
    outputId: run.mintOutputId(),
    status: 'ok',
    kind: 'loom-authored',
    receipt,
    replayed,
    current_version: body.current_version,
    // A replay did nothing now: its current displacement is empty whatever the receipt recorded.
    displaced: replayed ? [] : (body.displaced as string[]).map((d) => cutId(d)),
  };
  if (replayed)
    result.note = 'This is the original receipt of an earlier identical request: report no new work for it.';
  if (cancelledDuring) result.turnCancelled = true;
  recordArtifact(run, {
    tool: 'loom_compose',
    outputId: result.outputId as string,
    runId: run.id,
    data: { receipt, replayed, canonicalRefs: canonical },
  });
  return result;
}

async function inspect(
  input: unknown,
  ctx: AuthoringContext,
  opts: LoomAuthoringToolsOptions,
): Promise<ToolResult> {
  const run = ctx.run;
  const g = gate(run, 'loom_inspect', 'read', ctx);
  if (g) return g;
  const client = clientFor(opts.config, opts.client, ctx);
  if (!client)
    return {
      outputId: run.mintOutputId(),
      status: 'failed',
      landed: 'no',
      code: 'not_configured',
      guidance: 'Loom authoring is not configured for this run.',
    };
  if (
    !isRecord(input) ||
    typeof input.loom_id !== 'string' ||
    !ID.test(input.loom_id) ||
    Object.keys(input).length !== 1
  ) {
    return refused(run, 'invalid_input', 'loom_inspect takes { loom_id }.');
  }
  if (ctx.signal?.aborted) return notSent(run, 'cancelled');
  const outcome = await send(client, { command: 'loom.inspect', args: { loom_id: input.loom_id } }, ctx);
  if (outcome.kind === 'not_sent') return notSent(run, outcome.code);
  if (outcome.kind === 'lost')
    return {
      outputId: run.mintOutputId(),
      status: 'failed',
      code: 'answer_lost',
      guidance: 'The answer could not be read; inspecting again is safe.',
    };
  if (!outcome.answer.ok) return refusalOf(run, outcome.answer);
  const view = readView(outcome.answer.body);
  if (!view)
    return {
      outputId: run.mintOutputId(),
      status: 'failed',
      code: 'malformed_payload',
      guidance: 'The host answered with something unreadable; inspecting again is safe.',
    };
  return { outputId: run.mintOutputId(), status: 'ok', ...view };
}

interface DeployedReceipt {
  apiUrl: string;
  space: string;
  instanceId: string;
}

function readDeployed(v: unknown): DeployedReceipt | undefined {
  if (!isRecord(v) || v.type !== 'loom-deployed-pattern-v1') return undefined;
  if (typeof v.api_url !== 'string' || typeof v.space !== 'string' || typeof v.instance_id !== 'string')
    return undefined;
  return { apiUrl: v.api_url, space: v.space, instanceId: v.instance_id };
}

async function authoringContext(
  input: unknown,
  ctx: AuthoringContext,
  opts: LoomAuthoringToolsOptions,
): Promise<ToolResult> {
  const run = ctx.run;
  const g = gate(run, 'loom_authoring_context', 'read', ctx);
  if (g) return g;
  const client = clientFor(opts.config, opts.client, ctx);
  if (!client)
    return {
      outputId: run.mintOutputId(),
      status: 'failed',
      landed: 'no',
      code: 'not_configured',
      guidance: 'Loom authoring is not configured for this run.',
    };
  const raw = input ?? {};
  if (
    !isRecord(raw) ||
    Object.keys(raw).some((k) => k !== 'loom_id') ||
    (raw.loom_id !== undefined && (typeof raw.loom_id !== 'string' || !ID.test(raw.loom_id)))
  ) {
    return refused(run, 'invalid_input', 'loom_authoring_context takes { loom_id? } only.');
  }
  // An explicit loom_id is a request (missing: an error); the bound target is implicit (missing:
  // reported unavailable). An interactive turn binds its own loomId and clears the configured one.
  const bound = ctx.turn ? ctx.turn.loomId : opts.config?.boundLoomId;
  const req: RunRequest = { command: 'loom.authoring-context', args: {} };
  if (typeof raw.loom_id === 'string') req.args.loom_id = raw.loom_id;
  else if (bound !== undefined) req.loomId = bound;
  if (ctx.signal?.aborted) return notSent(run, 'cancelled');
  const outcome = await send(client, req, ctx);
  if (outcome.kind === 'not_sent') return notSent(run, outcome.code);
  if (outcome.kind === 'lost')
    return {
      outputId: run.mintOutputId(),
      status: 'failed',
      code: 'answer_lost',
      guidance: 'The answer could not be read; asking again is safe.',
    };
  if (!outcome.answer.ok) return refusalOf(run, outcome.answer);
  const body = outcome.answer.body;
  if (!isRecord(body) || !Array.isArray(body.receipts)) {
    return {
      outputId: run.mintOutputId(),
      status: 'failed',
      code: 'malformed_payload',
      guidance: 'The host answered with something unreadable; asking again is safe.',
    };
  }
  const receipts = body.receipts
    .slice(0, LIMITS.maxReceipts)
    .map(readReceipt)
    .filter((r): r is Record<string, unknown> => r !== undefined);
  const result: ToolResult = {
    outputId: run.mintOutputId(),
    status: 'ok',
    receipts,
    target: body.target === null || body.target === undefined ? null : (readView(body.target) ?? null),
    note: HISTORY_NOTE,
  };
  if (isRecord(body.target_unavailable)) {
    result.target_unavailable = {
      loom_id: cutId(String(body.target_unavailable.loom_id ?? '')),
      reason: 'unavailable',
    };
  }
  // Deployed-pattern receipts: each checked against the configured Fabric session and its cell
  // loaded; anything missing, foreign, malformed or unavailable contributes no token.
  const deployed =
    isRecord(body.deployed_patterns) && Array.isArray(body.deployed_patterns.receipts)
      ? body.deployed_patterns.receipts
      : undefined;
  const resolver = opts.resolver;
  if (deployed && resolver) {
    const tokens: { pattern_token: string }[] = [];
    const links: string[] = [];
    for (const raw of deployed.slice(0, LIMITS.maxReceipts)) {
      const d = readDeployed(raw);
      if (!d || d.apiUrl !== resolver.session.apiUrl || d.space !== resolver.session.space) continue;
      let cell: Awaited<ReturnType<PatternResolver['load']>>;
      try {
        cell = await resolver.load(d);
      } catch {
        cell = undefined;
      }
      if (cell?.target !== 'pattern-instance') continue;
      const token = await resolver.handleFor({ space: d.space, instanceId: d.instanceId });
      if (token === undefined) continue;
      tokens.push({ pattern_token: token });
      links.push(`pattern:${d.space}/${d.instanceId}`);
    }
    result.deployed_patterns = tokens;
    recordArtifact(run, {
      tool: 'loom_authoring_context',
      outputId: result.outputId as string,
      runId: run.id,
      data: { canonicalRefs: links },
    });
  }
  return result;
}

const composeSchema: JsonSchema = {
  type: 'object',
  required: ['request_id', 'components'],
  properties: {
    request_id: {
      type: 'string',
      description:
        'One key for one logical composition. On retry keep the same key and the exact same arguments.',
    },
    loom_id: {
      type: 'string',
      description: 'Extend this loom; leave out to create a new one. Never inferred from history.',
    },
    expected_version: {
      type: 'integer',
      description: 'Refuse unless the loom is at this version (needs loom_id).',
    },
    components: {
      type: 'array',
      description: `1 to ${LIMITS.maxComponents} components, each exactly one ref or pattern_token.`,
      items: {
        type: 'object',
        properties: {
          ref: { type: 'string', description: `A reference starting ${REF_PREFIXES.join(' ')}` },
          pattern_token: { type: 'string', description: 'A Pattern Instance token you hold.' },
          title: { type: 'string' },
          stage: { type: 'string' },
          focus: { type: 'boolean' },
        },
      },
    },
  },
};

/**
 * Creates `loom_compose`, `loom_inspect` and `loom_authoring_context` (host commands
 * `loom.compose`, `loom.inspect`, `loom.authoring-context`). Returns an empty list without a
 * configuration (unless `alwaysRegister`).
 */
export function createLoomAuthoringTools(options: LoomAuthoringToolsOptions): HarnessTool[] {
  if (options.config === undefined && options.alwaysRegister !== true) return [];
  const opts: LoomAuthoringToolsOptions = { ...options };
  // One client for the tools' lifetime, except direct interactive sessions (a namespace each).
  if (!opts.client && opts.config && opts.config.transport.kind === 'broker')
    opts.client = createHostClient(opts.config);
  return [
    {
      name: 'loom_compose',
      description:
        'Create a loom (no loom_id) or extend one (loom_id, optionally guarded by expected_version) from 1-100 components. Commits atomically and returns the receipt; an identical retry with the same request_id returns the original receipt (replayed: true).',
      inputSchema: composeSchema,
      effect: 'write',
      annotations: {
        title: 'Compose a loom',
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      },
      execute: (input, ctx) => compose(input, ctx as AuthoringContext, opts),
    },
    {
      name: 'loom_inspect',
      description:
        'Read one loom: its current version, component metadata and layout. Grants no handles to what the components reference.',
      inputSchema: { type: 'object', required: ['loom_id'], properties: { loom_id: { type: 'string' } } },
      effect: 'read',
      annotations: {
        title: 'Inspect a loom',
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
      execute: (input, ctx) => inspect(input, ctx as AuthoringContext, opts),
    },
    {
      name: 'loom_authoring_context',
      description: `Recover up to ${LIMITS.maxReceipts} of this run's historical compose receipts and the bound loom, and deployed Pattern tokens where the host reports them. History is not new work and never selects a write target.`,
      inputSchema: {
        type: 'object',
        properties: { loom_id: { type: 'string', description: 'A loom to read beside the receipts.' } },
      },
      effect: 'read',
      annotations: {
        title: 'Loom authoring context',
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
      execute: (input, ctx) => authoringContext(input, ctx as AuthoringContext, opts),
    },
  ];
}

/**
 * The tools that survive a comment thread's restriction. Without `allowCommentThreads: true` only
 * read tools the session policy names pass (the ordinary read-only policy); with it, the Loom
 * tools the session policy names pass too. No other write tool (shell, file writes, delegation)
 * ever passes, and nothing here grants direct-command authority.
 */
export function toolsForCommentThread<T extends { name: string; effect: 'read' | 'write' }>(
  tools: readonly T[],
  options: { sessionPolicy: readonly string[]; allowCommentThreads?: boolean | undefined },
): T[] {
  const named = new Set(options.sessionPolicy);
  return tools.filter((t) => {
    if (!named.has(t.name)) return false;
    if (t.effect === 'read') return true;
    return options.allowCommentThreads === true && (LOOM_TOOL_NAMES as readonly string[]).includes(t.name);
  });
}
