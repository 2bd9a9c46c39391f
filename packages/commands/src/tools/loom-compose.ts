// loom_compose: create or extend a loom from components in one atomic host commit, returning its
// receipt; an identical retry recovers the original receipt (seed 001).
import { recordArtifact } from '../artifacts';
import { REF_PREFIXES, readComposeInput } from '../compose-input';
import { sendRun } from '../host/send';
import { isRecord, isStringArray } from '../json';
import { LIMITS } from '../limits';
import { readReceipt } from '../loom-answers';
import { type AuthoringContext, type LoomToolSetup, startLoomCall } from '../loom-call';
import { notSent, refusalOf, refused, uncertain } from '../loom-failures';
import type { LoomComposedOutcome, LoomComposeOutcome } from '../outcome';
import { DeliveryCode, LOOM_AUTHORED, LoomRefusalCode, OutcomeStatus } from '../outcome-codes';
import { resolvePatternToken } from '../pattern';
import { cutId } from '../shape';
import type { HarnessTool, JsonSchema } from '../tool';
import { guardInput } from '../tool-input';

const inputSchema: JsonSchema = {
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

/** The `loom_compose` tool (host command `loom.compose`). */
export function loomComposeTool(setup: LoomToolSetup): HarnessTool {
  return {
    name: 'loom_compose',
    description:
      'Create a loom (no loom_id) or extend one (loom_id, optionally guarded by expected_version) from 1-100 components. Commits atomically and returns the receipt; an identical retry with the same request_id returns the original receipt (replayed: true).',
    inputSchema,
    effect: 'write',
    annotations: {
      title: 'Compose a loom',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
    execute: guardInput((input, ctx) => compose(input, ctx as AuthoringContext, setup)),
  };
}

async function compose(
  input: unknown,
  ctx: AuthoringContext,
  setup: LoomToolSetup,
): Promise<LoomComposeOutcome> {
  const run = ctx.run;
  const start = startLoomCall('loom_compose', 'write', ctx, setup);
  if (!start.ok) return start.result;
  const parsed = readComposeInput(input);
  if (!parsed.ok) return refused(run, LoomRefusalCode.invalid_input, parsed.message);
  const p = parsed.value;
  // Every token is resolved and checked before anything is written.
  const components: Record<string, unknown>[] = [];
  const canonical: string[] = [];
  for (const [i, c] of p.components.entries()) {
    const out: Record<string, unknown> = {};
    if (typeof c.pattern_token === 'string') {
      const r = await resolvePatternToken(setup.resolver, c.pattern_token);
      if (!r.ok) {
        return refused(
          run,
          r.code,
          `components[${i}].pattern_token is not a held handle to a whole Pattern Instance in this session's space; use a token you were given for the instance.`,
        );
      }
      // The host gets the canonical reference; the model only ever held the token.
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
  if (ctx.signal?.aborted) return notSent(run, DeliveryCode.cancelled);
  const args: Record<string, unknown> = { request_id: p.requestId, components };
  if (p.loomId !== undefined) args.loom_id = p.loomId;
  if (p.expectedVersion !== undefined) args.expected_version = p.expectedVersion;
  // Started: the call settles whatever happens to the turn, and nothing pretends to roll it back.
  const outcome = await sendRun(start.client, { command: 'loom.compose', args }, ctx);
  const cancelledDuring = ctx.signal?.aborted === true;
  if (outcome.kind === 'not_sent') return notSent(run, outcome.code);
  // A lost or unreadable answer may hide a commit: the model recovers it by retrying identically.
  if (outcome.kind === 'lost') return uncertain(run);
  const answer = outcome.answer;
  if (!answer.ok) return refusalOf(run, answer);
  const body = answer.body;
  const receipt = isRecord(body) ? readReceipt(body.receipt) : undefined;
  if (
    !isRecord(body) ||
    !receipt ||
    typeof body.replayed !== 'boolean' ||
    typeof body.current_version !== 'number' ||
    !isStringArray(body.displaced)
  ) {
    return uncertain(run);
  }
  const replayed = body.replayed;
  const result: LoomComposedOutcome = {
    outputId: run.mintOutputId(),
    status: OutcomeStatus.ok,
    kind: LOOM_AUTHORED,
    receipt,
    replayed,
    current_version: body.current_version,
    // A replay did nothing now: its current displacement is empty whatever the receipt recorded.
    displaced: replayed ? [] : body.displaced.map((d) => cutId(d)),
  };
  if (replayed)
    result.note = 'This is the original receipt of an earlier identical request: report no new work for it.';
  if (cancelledDuring) result.turnCancelled = true;
  recordArtifact(run, {
    tool: 'loom_compose',
    outputId: result.outputId,
    runId: run.id,
    data: { receipt, replayed, canonicalRefs: canonical },
  });
  return result;
}
