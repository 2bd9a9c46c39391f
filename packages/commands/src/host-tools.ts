import { authorize, type Label, type Measurement, measure } from '@harness/ifc';
import { sanitizeSchema } from '@harness/signature';
import { type Catalog, type CatalogRow, readCatalog, suggest } from './catalog';
import type { CommandsConfig } from './config';
import { createHostClient } from './host/client';
import type { CommandAnswer, HostClient, RunRequest } from './host/types';
import { LIMITS } from './limits';
import type { RunState } from './run';
import { boundStrings, cutId, jsonBytes, mapLimited } from './shape';
import type { HarnessTool, JsonSchema, ToolContext, ToolResult } from './tool';

/** Options of {@link createHostCommandTools}. */
export interface HostCommandToolsOptions {
  /**
   * The host configuration (see `readCommandsConfig`). Without it the three tools are absent:
   * the function returns an empty list.
   */
  config: CommandsConfig | undefined;
  /**
   * Keep the three tools present without a configuration, each call answering
   * `failed_to_deliver` / `not_configured` — for servers whose tool list must not change.
   */
  alwaysRegister?: boolean;
  /** The host client to use instead of the one the configuration names (tests, benchmarks). */
  client?: HostClient;
  /** Model bounds in bytes; defaults `LIMITS.listBound` and `LIMITS.outputBound`. */
  bounds?: { listBound?: number; outputBound?: number };
}

interface Bounds {
  listBound: number;
  outputBound: number;
}

/** The notice every listing carries (seed 000 "list_commands"). */
export const LIST_NOTICE =
  "A command's effect is shown in its signature's bracket only where the host declares it; assume a command whose effect is not shown may change the person's data. readOnlyGranted: true marks the commands run_read_command may run; every other command needs run_command.";

const NOT_GRANTED_HINT =
  'The host did not grant this command to this run. Do not retry it: say in your result that the command needs the person to grant it, and offer it to them.';
const READ_NOT_GRANTED_HINT =
  'run_read_command runs only commands whose effect is "read" and that carry readOnlyGranted: true in a fresh list_commands. Do not retry it here; use run_command if the task allows a write, or offer the command to the person.';
const UNKNOWN_HINT =
  'No command by that name is listed for this run. Call list_commands to see what this run can call.';
const LOST_HINT =
  'The command was sent and its answer could not be read: it may have taken effect. Check before repeating it.';

type Landed = 'no' | 'unknown';

function failure(run: RunState, code: string, message: string, landed: Landed = 'no'): ToolResult {
  return { outputId: run.mintOutputId(), status: 'failed_to_deliver', landed, code, message };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads the host listing afresh and holds it; a failed read holds nothing and keeps what was held. */
async function freshCatalog(
  run: RunState,
  client: HostClient,
  ctx: ToolContext,
): Promise<Catalog | { code: string }> {
  const listed = await client.list({ jobId: ctx.jobId, signal: ctx.signal });
  if (!listed.ok) return { code: listed.code };
  const read = readCatalog(listed.listing);
  if (!read.ok) return { code: read.code };
  run.catalog = read.catalog;
  return read.catalog;
}

/** The run's held catalog, read from the host the first time a tool needs it. */
async function heldCatalog(
  run: RunState,
  client: HostClient,
  ctx: ToolContext,
): Promise<Catalog | { code: string }> {
  return run.catalog ?? freshCatalog(run, client, ctx);
}

function catalogFailure(run: RunState, code: string): ToolResult {
  if (code === 'cancelled')
    return failure(run, 'cancelled', 'The turn was cancelled before the command listing was read.');
  return failure(
    run,
    code,
    code === 'malformed_payload'
      ? 'The host answered the command listing with something that is not a listing; nothing was sent.'
      : 'The host command listing could not be read; nothing was sent. Try again later.',
  );
}

function policyRefusal(
  run: RunState,
  tool: string,
  ctx: ToolContext,
  effect: 'read' | 'write',
): ToolResult | undefined {
  const decision = authorize({ mode: run.mode, slot: ctx.slot ?? 'absent', toolEffect: effect, tool });
  run.policyTrace.push({ tool, ...decision });
  if (decision.allowed) return undefined;
  return {
    outputId: run.mintOutputId(),
    status: 'failed_to_deliver',
    landed: 'no',
    code: 'not_authorized',
    reasonCode: decision.reasonCode,
    message: `The run's policy does not let this task call ${tool}; nothing was sent.`,
  };
}

// ---------------------------------------------------------------------------------------------
// list_commands

function listEntry(row: CatalogRow, whole: boolean, detail: boolean): Record<string, unknown> {
  const e: Record<string, unknown> = { name: row.name, signature: row.signature };
  if (row.title !== undefined) e.title = row.title;
  if (whole && row.description !== undefined) e.description = row.description;
  if (row.readOnlyGranted) e.readOnlyGranted = true;
  if (detail) e.inputSchema = sanitizeSchema(row.inputs);
  return e;
}

/**
 * Builds the `list_commands` result from a catalog: entries whole while the listing fits the model
 * bound (counting every later entry in its compact form), the rest without description; entries
 * named in `detail` always whole, with their sanitised `inputSchema`.
 */
export function renderListing(
  run: RunState,
  catalog: Catalog,
  detail: readonly string[] = [],
  bound: number = LIMITS.listBound,
): ToolResult {
  const wanted = new Set(detail);
  const rows = catalog.rows;
  const n = rows.length;
  const compact = new Array<Record<string, unknown>>(n);
  const compactSize = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const row = rows[i] as CatalogRow;
    const isDetail = wanted.has(row.name);
    // A detail entry is always whole; the others start compact and gain their description below.
    const e = listEntry(row, isDetail, isDetail);
    compact[i] = e;
    compactSize[i] = Buffer.byteLength(JSON.stringify(e)) + 1;
  }
  const suffix = new Array<number>(n + 1).fill(0);
  for (let i = n - 1; i >= 0; i--) suffix[i] = (suffix[i + 1] ?? 0) + (compactSize[i] ?? 0);
  const head = {
    outputId: 'out-',
    status: 'ok',
    notice: LIST_NOTICE,
    entries: [],
    hidden: catalog.hidden,
    omitted: catalog.omitted,
    compacted: n,
  };
  let used = jsonBytes(head) + 32;
  let whole = true;
  let compacted = 0;
  for (let i = 0; i < n; i++) {
    const row = rows[i] as CatalogRow;
    const size = compactSize[i] ?? 0;
    if (row.description === undefined || wanted.has(row.name)) {
      used += size;
      continue;
    }
    if (whole) {
      // The description's cost: `,"description":` plus its JSON text.
      const extra = 15 + Buffer.byteLength(JSON.stringify(row.description));
      if (used + size + extra + (suffix[i + 1] ?? 0) <= bound) {
        (compact[i] as Record<string, unknown>).description = row.description;
        used += size + extra;
        continue;
      }
      // The first entry that does not fit ends the whole prefix: the rest lose their description.
      whole = false;
    }
    used += size;
    compacted++;
  }
  return {
    outputId: run.mintOutputId(),
    status: 'ok',
    notice: LIST_NOTICE,
    entries: compact,
    hidden: catalog.hidden,
    omitted: catalog.omitted,
    compacted,
  };
}

async function listCommands(
  input: unknown,
  ctx: ToolContext,
  client: HostClient | undefined,
  bounds: Bounds,
): Promise<ToolResult> {
  const run = ctx.run;
  const refused = policyRefusal(run, 'list_commands', ctx, 'read');
  if (refused) return refused;
  if (!client) return failure(run, 'not_configured', 'No host configuration is available to this run.');
  const raw = input ?? {};
  if (!isRecord(raw))
    return failure(run, 'invalid_input', 'list_commands takes an object: { detail?: string[] }.');
  const extra = Object.keys(raw).filter((k) => k !== 'detail');
  if (extra.length > 0)
    return failure(
      run,
      'invalid_input',
      `list_commands takes only "detail" (found "${cutId(extra[0] ?? '')}").`,
    );
  const detail = raw.detail ?? [];
  if (!Array.isArray(detail) || !detail.every((d) => typeof d === 'string')) {
    return failure(run, 'invalid_input', 'detail must be a list of command names.');
  }
  if (detail.length > LIMITS.maxDetail) {
    return failure(
      run,
      'invalid_input',
      `detail names at most ${LIMITS.maxDetail} commands (found ${detail.length}); ask in several calls.`,
    );
  }
  if (ctx.signal?.aborted) return failure(run, 'cancelled', 'The turn was cancelled; nothing was read.');
  const catalog = await freshCatalog(run, client, ctx);
  if ('code' in catalog) return catalogFailure(run, catalog.code);
  return renderListing(run, catalog, detail, bounds.listBound);
}

// ---------------------------------------------------------------------------------------------
// run_command / run_read_command

interface ParsedCall {
  command: string;
  args: Record<string, unknown>;
  loomId?: string;
  expectedVersion?: number;
}

const CALL_KEYS = new Set(['command', 'args', 'loomId', 'expectedVersion']);

function parseCall(raw: unknown): { ok: true; call: ParsedCall } | { ok: false; message: string } {
  if (!isRecord(raw))
    return { ok: false, message: 'A call is an object: { command, args?, loomId?, expectedVersion? }.' };
  for (const k of Object.keys(raw)) {
    if (!CALL_KEYS.has(k)) {
      return {
        ok: false,
        message: `A call takes command, args, loomId and expectedVersion only (found "${cutId(k, 64)}").`,
      };
    }
  }
  const { command, args, loomId, expectedVersion } = raw;
  if (typeof command !== 'string' || command.length === 0 || command.length > 256) {
    return { ok: false, message: 'command must be the name of a listed command.' };
  }
  const a = args ?? {};
  if (!isRecord(a)) return { ok: false, message: 'args must be a JSON object.' };
  const bytes = jsonBytes(a);
  if (bytes > LIMITS.maxArgsBytes) {
    return { ok: false, message: `args take at most ${LIMITS.maxArgsBytes} bytes of JSON (found ${bytes}).` };
  }
  const call: ParsedCall = { command, args: a };
  if (loomId !== undefined) {
    if (typeof loomId !== 'string' || !/^[^\s\p{Cc}]{1,256}$/u.test(loomId)) {
      return { ok: false, message: 'loomId must be a loom id (a non-empty string without spaces).' };
    }
    call.loomId = loomId;
  }
  if (expectedVersion !== undefined) {
    if (
      typeof expectedVersion !== 'number' ||
      !Number.isSafeInteger(expectedVersion) ||
      expectedVersion < 0
    ) {
      return { ok: false, message: 'expectedVersion must be a non-negative integer.' };
    }
    call.expectedVersion = expectedVersion;
  }
  return { ok: true, call };
}

type Parsed =
  | { kind: 'single'; raw: unknown }
  | { kind: 'batch'; raws: unknown[] }
  | { kind: 'error'; code: string; message: string };

function parseInput(input: unknown): Parsed {
  if (!isRecord(input))
    return {
      kind: 'error',
      code: 'invalid_input',
      message: 'Give one call { command, args } or a batch { calls: [...] }.',
    };
  if ('calls' in input) {
    if ('command' in input) {
      return {
        kind: 'error',
        code: 'invalid_input',
        message: 'Give either command (one call) or calls (a batch), not both.',
      };
    }
    const extra = Object.keys(input).filter((k) => k !== 'calls');
    if (extra.length > 0)
      return { kind: 'error', code: 'invalid_input', message: 'A batch takes only "calls".' };
    const calls = input.calls;
    if (!Array.isArray(calls))
      return { kind: 'error', code: 'invalid_input', message: 'calls must be a list of calls.' };
    if (calls.length === 0)
      return {
        kind: 'error',
        code: 'invalid_input',
        message: `A batch carries 1 to ${LIMITS.maxBatchCalls} calls (found none).`,
      };
    if (calls.length > LIMITS.maxBatchCalls) {
      return {
        kind: 'error',
        code: 'batch_too_large',
        message: `A batch carries at most ${LIMITS.maxBatchCalls} calls (found ${calls.length}); split it. Nothing was sent.`,
      };
    }
    return { kind: 'batch', raws: calls };
  }
  return { kind: 'single', raw: input };
}

/** One call's settled state before shaping. */
type Settled =
  | { kind: 'ready'; result: Record<string, unknown> }
  | { kind: 'answer'; call: ParsedCall; row: CatalogRow; answer: CommandAnswer };

function answerForMeasure(answer: CommandAnswer, row: CatalogRow): Record<string, unknown> {
  const a: Record<string, unknown> = {
    ok: answer.ok,
    id: answer.id,
    code: answer.code,
    mayHaveLanded: answer.mayHaveLanded,
    completed: answer.completed,
    body: answer.body,
  };
  if (answer.reason !== undefined) a.reason = answer.reason;
  // The answer's own label; else the label the host declares for this command's answers (still
  // the host's statement about this answer); else none, and measure() takes the query's label.
  if (answer.hasLabel) a.ifc = answer.ifc;
  else if (row.hasLabel) a.ifc = row.ifc;
  return a;
}

function reportedVersion(body: unknown): number | undefined {
  if (!isRecord(body)) return undefined;
  for (const v of [
    body.version,
    body.current_version,
    isRecord(body.receipt) ? body.receipt.version : undefined,
  ]) {
    if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  }
  return undefined;
}

interface Executed {
  index: number;
  summary: Record<string, unknown>;
  outcome: Record<string, unknown>;
  signature: string | undefined;
  hint: string | undefined;
  measurement: Measurement<Record<string, unknown>>;
  entryStub: Record<string, unknown>;
  entryFull: Record<string, unknown> | undefined;
}

function shapeExecuted(
  run: RunState,
  s: Extract<Settled, { kind: 'answer' }>,
  queryLabel: Label,
): Omit<Executed, 'index'> {
  const { answer, row, call } = s;
  const outcome: Record<string, unknown> = {
    ok: answer.ok,
    id: cutId(answer.id),
    code: cutId(answer.code),
    mayHaveLanded: answer.mayHaveLanded,
    completed: answer.completed.slice(0, LIMITS.maxCompleted).map((c) => cutId(c)),
    bodyBytes: jsonBytes(answer.body),
  };
  let hint: string | undefined;
  if (answer.code === 'forbidden' || answer.code === 'refused') {
    outcome.code = 'not_granted';
    outcome.hostCode = answer.code;
    hint = NOT_GRANTED_HINT;
  }
  if (answer.reason !== undefined) outcome.reason = cutId(answer.reason);
  const signature = answer.code === 'bad-args' ? row.signature : undefined;

  const measured = answerForMeasure(answer, row);
  const measurement = measure(measured, { queryLabel, ceiling: run.ceiling });
  let entryStub: Record<string, unknown>;
  let entryFull: Record<string, unknown> | undefined;
  if (measurement.status === 'admitted') {
    const body = answer.body;
    const named = isRecord(body) && typeof body.handle === 'string' ? body.handle : undefined;
    const version = reportedVersion(body);
    const loomId =
      call.loomId ?? (isRecord(body) && typeof body.loom_id === 'string' ? body.loom_id : undefined);
    const referent = run.referents.hold(measurement, {
      source: 'command',
      provenance: {
        command: row.name,
        actor: run.actor,
        ...(loomId !== undefined ? { loomId } : {}),
        ...(version !== undefined ? { version } : {}),
      },
      ...(named !== undefined && run.referents.get(named) ? { derivedFrom: named } : {}),
    });
    entryStub = { status: 'admitted', labelSource: measurement.labelSource, referent: referent.id };
    entryFull = { ...entryStub, value: boundStrings(body) };
  } else {
    entryStub = { status: 'withheld', reasonCode: measurement.reasonCode };
  }
  const summary: Record<string, unknown> = { outputId: '', status: 'executed', command: row.name, outcome };
  return { summary, outcome, signature, hint, measurement, entryStub, entryFull };
}

async function settleCall(
  raw: unknown,
  readOnly: boolean,
  catalog: Catalog,
  client: HostClient,
  ctx: ToolContext,
): Promise<Settled> {
  const parsed = parseCall(raw);
  if (!parsed.ok)
    return {
      kind: 'ready',
      result: { status: 'failed_to_deliver', landed: 'no', code: 'invalid_input', message: parsed.message },
    };
  const call = parsed.call;
  if (ctx.signal?.aborted) {
    return {
      kind: 'ready',
      result: {
        status: 'failed_to_deliver',
        landed: 'no',
        code: 'cancelled',
        command: cutId(call.command),
        message: 'The turn was cancelled before this call was sent.',
      },
    };
  }
  const row = catalog.byName.get(call.command);
  if (!row) {
    return {
      kind: 'ready',
      result: {
        status: 'unknown_command',
        command: cutId(call.command),
        suggestions: suggest(catalog, call.command),
        hint: UNKNOWN_HINT,
      },
    };
  }
  if (readOnly && (row.effect !== 'read' || !row.readOnlyGranted)) {
    return {
      kind: 'ready',
      result: {
        status: 'not_granted',
        landed: 'no',
        code: 'not_granted',
        command: row.name,
        reasonCode: row.effect !== 'read' ? 'effect_not_read' : 'read_only_not_granted',
        hint: READ_NOT_GRANTED_HINT,
      },
    };
  }
  const req: RunRequest = { command: row.name, args: call.args };
  if (call.loomId !== undefined) req.loomId = call.loomId;
  if (call.expectedVersion !== undefined) req.expectedVersion = call.expectedVersion;
  if (readOnly) req.readOnly = true;
  let outcome: Awaited<ReturnType<HostClient['run']>>;
  try {
    outcome = await client.run(req, { jobId: ctx.jobId, signal: ctx.signal });
  } catch {
    outcome = { kind: 'lost' };
  }
  if (outcome.kind === 'answer') return { kind: 'answer', call, row, answer: outcome.answer };
  if (outcome.kind === 'lost') {
    return {
      kind: 'ready',
      result: {
        status: 'failed_to_deliver',
        landed: 'unknown',
        code: 'answer_lost',
        command: row.name,
        hint: LOST_HINT,
      },
    };
  }
  const messages = {
    cancelled: 'The turn was cancelled before this call was sent.',
    invalid_input: 'The host refused the call before running it (malformed or oversized arguments).',
    command_failed: 'The host could not be reached; nothing was sent.',
  } as const;
  return {
    kind: 'ready',
    result: {
      status: 'failed_to_deliver',
      landed: 'no',
      code: outcome.code,
      command: row.name,
      message: messages[outcome.code],
    },
  };
}

function minimalOf(result: Record<string, unknown>, executed: Executed | undefined): Record<string, unknown> {
  if (executed) {
    const o = executed.outcome;
    return {
      outputId: result.outputId,
      status: 'executed',
      outcome: { ok: o.ok, code: o.code, bodyBytes: o.bodyBytes },
      entry: executed.entryStub,
      summaryOmitted: true,
    };
  }
  const m: Record<string, unknown> = { outputId: result.outputId, status: result.status };
  if (result.landed !== undefined) m.landed = result.landed;
  if (result.code !== undefined) m.code = result.code;
  m.summaryOmitted = true;
  return m;
}

async function runCalls(
  tool: 'run_command' | 'run_read_command',
  input: unknown,
  ctx: ToolContext,
  client: HostClient | undefined,
  bounds: Bounds,
): Promise<ToolResult> {
  const run = ctx.run;
  const readOnly = tool === 'run_read_command';
  const refused = policyRefusal(run, tool, ctx, readOnly ? 'read' : 'write');
  if (refused) return refused;
  if (!client) return failure(run, 'not_configured', 'No host configuration is available to this run.');
  const parsed = parseInput(input);
  if (parsed.kind === 'error') return failure(run, parsed.code, parsed.message);
  if (parsed.kind === 'single') {
    const p = parseCall(parsed.raw);
    if (!p.ok) return failure(run, 'invalid_input', p.message);
  }
  if (ctx.signal?.aborted) return failure(run, 'cancelled', 'The turn was cancelled; nothing was sent.');
  // The label of the whole input: what the model had seen when it wrote these arguments.
  const queryLabel = run.observations.context;
  const catalog = readOnly ? await freshCatalog(run, client, ctx) : await heldCatalog(run, client, ctx);
  if ('code' in catalog) return catalogFailure(run, catalog.code);

  const raws = parsed.kind === 'batch' ? parsed.raws : [parsed.raw];
  let done = 0;
  const settled = await mapLimited(raws, LIMITS.maxInFlight, async (raw) => {
    const s = await settleCall(raw, readOnly, catalog, client, ctx);
    done++;
    ctx.onProgress?.({ progress: done, total: raws.length });
    return s;
  });

  // Output ids are minted in the calls' order (the batch's own first), whatever order calls settled in.
  const batchId = parsed.kind === 'batch' ? run.mintOutputId() : undefined;
  const results: Record<string, unknown>[] = [];
  const executed: (Executed | undefined)[] = [];
  const measurements: Measurement<unknown>[] = [];
  settled.forEach((s, index) => {
    const outputId = run.mintOutputId();
    if (s.kind === 'ready') {
      results.push({ outputId, ...s.result });
      executed.push(undefined);
      return;
    }
    const e = shapeExecuted(run, s, queryLabel);
    e.summary.outputId = outputId;
    measurements.push(e.measurement);
    executed.push({ index, ...e });
    results.push(e.summary);
  });
  run.observations.observeBatch(measurements);

  if (batchId === undefined) {
    const result = results[0] as Record<string, unknown>;
    const e = executed[0];
    if (!e) return result;
    result.outcome = e.outcome;
    if (e.hint !== undefined) result.hint = e.hint;
    if (e.signature !== undefined) result.signature = e.signature;
    result.entry = e.entryFull ?? e.entryStub;
    result.truncated = false;
    if (e.entryFull && jsonBytes(result) > bounds.outputBound) {
      result.entry = e.entryStub;
      result.truncated = true;
    }
    return result;
  }
  return shapeBatch(batchId, results, executed, bounds.outputBound);
}

/**
 * Fits a batch's results into one output bound (seed 000 "A batch's result"): summaries charged in
 * the calls' order beside the smallest form of every later call, shrinking first by dropping the
 * signature, then to `ok`/`code`/`bodyBytes`; then answers in the calls' order against what is left.
 */
function shapeBatch(
  batchId: string,
  results: Record<string, unknown>[],
  executed: readonly (Executed | undefined)[],
  bound: number,
): ToolResult {
  const forms = results.map((r, i) => {
    const e = executed[i];
    if (!e) return [r, minimalOf(r, undefined)];
    const { completed, ...rest } = e.outcome;
    const outcome = { ...rest, completedOmitted: Array.isArray(completed) ? completed.length : 0 };
    const base = { ...r, outcome, entry: e.entryStub };
    const full = e.signature !== undefined ? { ...base, signature: e.signature } : base;
    return e.signature !== undefined ? [full, base, minimalOf(r, e)] : [full, minimalOf(r, e)];
  });
  // An answer that may be left out reserves the `"truncated":true` mark it would then carry.
  const mark = jsonBytes({ truncated: true }) - 1;
  const size = forms.map((fs, i) => fs.map((f) => jsonBytes(f) + 1 + (executed[i]?.entryFull ? mark : 0)));
  const minSize = size.map((s) => s[s.length - 1] ?? 0);
  const suffix = new Array<number>(results.length + 1).fill(0);
  for (let i = results.length - 1; i >= 0; i--) suffix[i] = (suffix[i + 1] ?? 0) + (minSize[i] ?? 0);
  let used = jsonBytes({ outputId: batchId, status: 'batch', results: [], truncated: false });
  const chosen: Record<string, unknown>[] = [];
  forms.forEach((fs, i) => {
    const avail = bound - used - (suffix[i + 1] ?? 0);
    const sizes = size[i] ?? [];
    let pick = fs.length - 1;
    for (let k = 0; k < fs.length; k++) {
      if ((sizes[k] ?? 0) <= avail) {
        pick = k;
        break;
      }
    }
    chosen.push({ ...(fs[pick] as Record<string, unknown>) });
    used += sizes[pick] ?? 0;
  });
  let left = bound - used;
  let truncated = false;
  executed.forEach((e, i) => {
    if (!e?.entryFull) return;
    const extra = jsonBytes(e.entryFull) - jsonBytes(e.entryStub) - mark;
    const target = chosen[i] as Record<string, unknown>;
    if (extra <= left) {
      target.entry = e.entryFull;
      left -= extra;
    } else {
      target.truncated = true;
      truncated = true;
    }
  });
  return { outputId: batchId, status: 'batch', results: chosen, truncated };
}

// ---------------------------------------------------------------------------------------------
// Tool definitions

const callSchema: JsonSchema = {
  type: 'object',
  properties: {
    command: { type: 'string', description: 'A command name exactly as list_commands shows it.' },
    args: {
      type: 'object',
      description: `The command's arguments (at most ${LIMITS.maxArgsBytes / 1024} KiB of JSON).`,
    },
    loomId: { type: 'string', description: 'The loom a command whose target is "loom" acts on.' },
    expectedVersion: {
      type: 'integer',
      description: "Refuse unless the loom is at this version (the loom's write guard).",
    },
  },
};

const runInputSchema: JsonSchema = {
  type: 'object',
  properties: {
    ...(callSchema.properties as Record<string, unknown>),
    calls: {
      type: 'array',
      description: `A batch of 1 to ${LIMITS.maxBatchCalls} independent calls (instead of command/args); they run concurrently.`,
      items: callSchema,
    },
  },
};

const listInputSchema: JsonSchema = {
  type: 'object',
  properties: {
    detail: {
      type: 'array',
      items: { type: 'string' },
      description: `Up to ${LIMITS.maxDetail} command names whose full argument schema (inputSchema) to include.`,
    },
  },
};

/**
 * Creates `list_commands`, `run_command` and `run_read_command` for a host configuration. Returns
 * an empty list when there is no configuration (unless `alwaysRegister`). The tools name no
 * command: what a run can call is what the host's broker lists for it.
 */
export function createHostCommandTools(options: HostCommandToolsOptions): HarnessTool[] {
  if (options.config === undefined && options.alwaysRegister !== true) return [];
  const client = options.client ?? (options.config ? createHostClient(options.config) : undefined);
  const bounds: Bounds = {
    listBound: options.bounds?.listBound ?? LIMITS.listBound,
    outputBound: options.bounds?.outputBound ?? LIMITS.outputBound,
  };
  return [
    {
      name: 'list_commands',
      description:
        'List the host commands this run may call, each as a one-line typed signature: name(params) -> {outputs}  [effect, target]. Pass detail (up to 16 names) to get their full argument schemas.',
      inputSchema: listInputSchema,
      effect: 'read',
      annotations: {
        title: 'List host commands',
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
      execute: (input, ctx) => listCommands(input, ctx, client, bounds),
    },
    {
      name: 'run_command',
      description: `Run one host command { command, args, loomId?, expectedVersion? } or a batch { calls: [...] } of 1 to ${LIMITS.maxBatchCalls} independent calls (at most ${LIMITS.maxInFlight} run at once). Only commands list_commands shows can run; the command may change the person's data.`,
      inputSchema: runInputSchema,
      effect: 'write',
      annotations: {
        title: 'Run host commands',
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: true,
      },
      execute: (input, ctx) => runCalls('run_command', input, ctx, client, bounds),
    },
    {
      name: 'run_read_command',
      description: `Run host commands that only read: the same input as run_command, for commands whose effect is "read" and that list_commands marks readOnlyGranted: true. The host enforces read-only execution.`,
      inputSchema: runInputSchema,
      effect: 'read',
      annotations: {
        title: 'Run read-only host commands',
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
      execute: (input, ctx) => runCalls('run_read_command', input, ctx, client, bounds),
    },
  ];
}
