// loom_authoring_context: this run's historical compose receipts, the bound loom, and tokens for
// deployed patterns. History only: it is not work done now and never selects a write target.

import { z } from 'zod';
import { recordArtifact } from '../artifacts';
import { loomIdText } from '../compose-input';
import { defineTool } from '../define-tool';
import { deployedPatternTokens } from '../deployed-patterns';
import { sendRun } from '../host/send';
import type { CallRequest } from '../host/types';
import { LIMITS } from '../limits';
import { readReceipt, readView } from '../loom-answers';
import { type AuthoringContext, type LoomToolSetup, startLoomCall } from '../loom-call';
import { failed, notSent, refusalOf, refused } from '../loom-failures';
import type { LoomAuthoringContextOutcome, LoomContextOutcome } from '../outcome';
import { DeliveryCode, LoomFailureCode, LoomRefusalCode, OutcomeStatus } from '../outcome-codes';
import { cutId } from '../shape';
import type { HarnessTool } from '../tool';
import { readInput } from '../tool-input';

const HISTORY_NOTE =
  'These receipts are history: they are not work done in this turn, they never select a write target, and a receipt does not attest that anything rendered.';

const TAKES = 'loom_authoring_context takes { loom_id? } only.';

/** The `loom_authoring_context` input: a loom to read beside the receipts, if any. */
export const AuthoringContextInput = z.strictObject(
  {
    loom_id: loomIdText(TAKES).optional().describe('A loom to read beside the receipts.'),
  },
  { error: TAKES },
);

/** `loom_authoring_context`: perhaps a loom id in, the run's receipts out. */
export type LoomAuthoringContextTool = HarnessTool<
  z.input<typeof AuthoringContextInput>,
  LoomAuthoringContextOutcome
>;

/**
 * The `loom_authoring_context` tool (host command `loom.authoring-context`). A call naming no loom
 * reads the configuration's `boundLoomId`, unless an interactive turn binds its own.
 */
export function loomAuthoringContextTool(setup: LoomToolSetup): LoomAuthoringContextTool {
  return defineTool({
    name: 'loom_authoring_context',
    description: `Recover up to ${LIMITS.maxReceipts} of this run's historical compose receipts and the bound loom, and deployed Pattern tokens where the host reports them. History is not new work and never selects a write target.`,
    input: AuthoringContextInput,
    effect: 'read',
    annotations: {
      title: 'Loom authoring context',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    execute: (input, ctx) => authoringContext(input, ctx as AuthoringContext, setup),
  });
}

async function authoringContext(
  input: unknown,
  ctx: AuthoringContext,
  setup: LoomToolSetup,
): Promise<LoomAuthoringContextOutcome> {
  const run = ctx.run;
  const start = startLoomCall('loom_authoring_context', 'read', ctx, setup);
  if (!start.ok) return start.result;
  // No input at all reads as an empty one, as it always has.
  const read = readInput(AuthoringContextInput, input ?? {});
  if (!read.ok) return refused(run, LoomRefusalCode.invalid_input, read.issue.message);
  const { loom_id } = read.value;
  // An explicit loom_id is a request (missing: an error); the bound target is implicit (missing:
  // reported unavailable). An interactive turn binds its own loomId and clears the configured one.
  const bound = ctx.turn ? ctx.turn.loomId : setup.config?.boundLoomId;
  const req: CallRequest = { command: 'loom.authoring-context', args: {} };
  if (loom_id !== undefined) req.args.loom_id = loom_id;
  else if (bound !== undefined) req.loomId = bound;
  if (ctx.signal?.aborted) return notSent(run, DeliveryCode.cancelled);
  const answer = await sendRun(start.client, req, ctx);
  if (answer.kind === 'not_sent') return notSent(run, answer.code);
  if (answer.kind === 'lost')
    return failed(run, LoomFailureCode.answer_lost, 'The answer could not be read; asking again is safe.');
  if (!answer.ok) return refusalOf(run, answer);
  if (answer.kind !== 'context')
    return failed(
      run,
      LoomFailureCode.malformed_payload,
      'The host answered with something unreadable; asking again is safe.',
    );
  const body = answer.body;
  const receipts = body.receipts.slice(0, LIMITS.maxReceipts).map(readReceipt);
  const result: LoomContextOutcome = {
    outputId: run.mintOutputId(),
    status: OutcomeStatus.ok,
    receipts,
    target: body.target === null ? null : readView(body.target),
    note: HISTORY_NOTE,
  };
  if (body.target_unavailable !== undefined) {
    result.target_unavailable = {
      loom_id: cutId(body.target_unavailable.loom_id),
      reason: 'unavailable',
    };
  }
  const deployed = body.deployed_patterns?.receipts;
  // Without a resolver no token can be checked, so the field is left out rather than empty.
  if (deployed && setup.resolver) {
    const { tokens, links } = await deployedPatternTokens(deployed, setup.resolver);
    result.deployed_patterns = tokens;
    recordArtifact(run, {
      tool: 'loom_authoring_context',
      outputId: result.outputId,
      runId: run.id,
      data: { canonicalRefs: links },
    });
  }
  return result;
}
