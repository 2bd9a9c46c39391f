// loom_inspect: read one loom's version, component metadata and layout; grants no handles to
// what the components reference.

import { isLoomId } from '@harness/protocol';
import { sendRun } from '../host/send';
import { isRecord } from '../json';
import { readView } from '../loom-answers';
import { type AuthoringContext, type LoomToolSetup, startLoomCall } from '../loom-call';
import { failed, notSent, refusalOf, refused } from '../loom-failures';
import type { LoomInspectOutcome } from '../outcome';
import { DeliveryCode, LoomFailureCode, LoomRefusalCode, OutcomeStatus } from '../outcome-codes';
import type { HarnessTool } from '../tool';
import { guardInput } from '../tool-input';

/** The `loom_inspect` tool (host command `loom.inspect`). */
export function loomInspectTool(setup: LoomToolSetup): HarnessTool {
  return {
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
    execute: guardInput((input, ctx) => inspect(input, ctx as AuthoringContext, setup)),
  };
}

async function inspect(
  input: unknown,
  ctx: AuthoringContext,
  setup: LoomToolSetup,
): Promise<LoomInspectOutcome> {
  const run = ctx.run;
  const start = startLoomCall('loom_inspect', 'read', ctx, setup);
  if (!start.ok) return start.result;
  if (!isRecord(input) || !isLoomId(input.loom_id) || Object.keys(input).length !== 1) {
    return refused(run, LoomRefusalCode.invalid_input, 'loom_inspect takes { loom_id }.');
  }
  if (ctx.signal?.aborted) return notSent(run, DeliveryCode.cancelled);
  const outcome = await sendRun(
    start.client,
    { command: 'loom.inspect', args: { loom_id: input.loom_id } },
    ctx,
  );
  if (outcome.kind === 'not_sent') return notSent(run, outcome.code);
  if (outcome.kind === 'lost')
    return failed(
      run,
      LoomFailureCode.answer_lost,
      'The answer could not be read; inspecting again is safe.',
    );
  if (!outcome.answer.ok) return refusalOf(run, outcome.answer);
  const view = readView(outcome.answer.body);
  if (!view)
    return failed(
      run,
      LoomFailureCode.malformed_payload,
      'The host answered with something unreadable; inspecting again is safe.',
    );
  return { outputId: run.mintOutputId(), status: OutcomeStatus.ok, ...view };
}
