// loom_compose: create or extend a loom from components in one atomic host commit, returning its
// receipt; an identical retry recovers the original receipt (seed 001).
import type { z } from 'zod';
import { recordArtifact } from '../artifacts';
import { ComposeInput, readComposeInput } from '../compose-input';
import { defineTool } from '../define-tool';
import { sendRun } from '../host/send';
import { readReceipt } from '../loom-answers';
import { type AuthoringContext, type LoomToolSetup, startLoomCall } from '../loom-call';
import { notSent, refusalOf, refused, uncertain } from '../loom-failures';
import type { LoomComposedOutcome, LoomComposeOutcome } from '../outcome';
import { DeliveryCode, LOOM_AUTHORED, LoomRefusalCode, OutcomeStatus } from '../outcome-codes';
import { resolvePatternToken } from '../pattern';
import { cutId } from '../shape';
import type { HarnessTool } from '../tool';

/** `loom_compose`: a composition in, its receipt out. */
export type LoomComposeTool = HarnessTool<z.input<typeof ComposeInput>, LoomComposeOutcome>;

/** The `loom_compose` tool (host command `loom.compose`). */
export function loomComposeTool(setup: LoomToolSetup): LoomComposeTool {
  return defineTool({
    name: 'loom_compose',
    description:
      'Create a loom (no loom_id) or extend one (loom_id, optionally guarded by expected_version) from 1-100 components. Commits atomically and returns the receipt; an identical retry with the same request_id returns the original receipt (replayed: true).',
    input: ComposeInput,
    effect: 'write',
    annotations: {
      title: 'Compose a loom',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
    execute: (input, ctx) => compose(input, ctx as AuthoringContext, setup),
  });
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
    if (c.pattern_token !== undefined) {
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
  const args: Record<string, unknown> = { request_id: p.request_id, components };
  if (p.loom_id !== undefined) args.loom_id = p.loom_id;
  if (p.expected_version !== undefined) args.expected_version = p.expected_version;
  // Started: the call settles whatever happens to the turn, and nothing pretends to roll it back.
  const answer = await sendRun(start.client, { command: 'loom.compose', args }, ctx);
  const cancelledDuring = ctx.signal?.aborted === true;
  if (answer.kind === 'not_sent') return notSent(run, answer.code);
  // A lost or unreadable answer may hide a commit: the model recovers it by retrying identically.
  if (answer.kind === 'lost') return uncertain(run);
  if (!answer.ok) return refusalOf(run, answer);
  // Any answer but a receipt may hide a commit too.
  if (answer.kind !== 'composed') return uncertain(run);
  const body = answer.body;
  const receipt = readReceipt(body.receipt);
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
