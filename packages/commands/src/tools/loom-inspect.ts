// loom_inspect: read one loom's version, component metadata and layout; grants no handles to
// what the components reference.

import { z } from 'zod';
import { loomIdText } from '../compose-input';
import { defineTool } from '../define-tool';
import { sendRun } from '../host/send';
import { readView } from '../loom-answers';
import { type AuthoringContext, type LoomToolSetup, startLoomCall } from '../loom-call';
import { failed, notSent, refusalOf, refused } from '../loom-failures';
import type { LoomInspectOutcome } from '../outcome';
import { DeliveryCode, LoomFailureCode, LoomRefusalCode, OutcomeStatus } from '../outcome-codes';
import type { HarnessTool } from '../tool';
import { readInput } from '../tool-input';

const TAKES = 'loom_inspect takes { loom_id }.';

/** The `loom_inspect` input: the loom to read. */
export const InspectInput = z.strictObject({ loom_id: loomIdText(TAKES) }, { error: TAKES });

/** `loom_inspect`: a loom id in, the loom's view out. */
export type LoomInspectTool = HarnessTool<z.input<typeof InspectInput>, LoomInspectOutcome>;

/** The `loom_inspect` tool (host command `loom.inspect`). */
export function loomInspectTool(setup: LoomToolSetup): LoomInspectTool {
  return defineTool({
    name: 'loom_inspect',
    description:
      'Read one loom: its current version, component metadata and layout. Grants no handles to what the components reference.',
    input: InspectInput,
    effect: 'read',
    annotations: {
      title: 'Inspect a loom',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    execute: (input, ctx) => inspect(input, ctx as AuthoringContext, setup),
  });
}

async function inspect(
  input: unknown,
  ctx: AuthoringContext,
  setup: LoomToolSetup,
): Promise<LoomInspectOutcome> {
  const run = ctx.run;
  const start = startLoomCall('loom_inspect', 'read', ctx, setup);
  if (!start.ok) return start.result;
  const read = readInput(InspectInput, input);
  if (!read.ok) return refused(run, LoomRefusalCode.invalid_input, read.issue.message);
  if (ctx.signal?.aborted) return notSent(run, DeliveryCode.cancelled);
  const answer = await sendRun(
    start.client,
    { command: 'loom.inspect', args: { loom_id: read.value.loom_id } },
    ctx,
  );
  if (answer.kind === 'not_sent') return notSent(run, answer.code);
  if (answer.kind === 'lost')
    return failed(
      run,
      LoomFailureCode.answer_lost,
      'The answer could not be read; inspecting again is safe.',
    );
  if (!answer.ok) return refusalOf(run, answer);
  if (answer.kind !== 'inspected')
    return failed(
      run,
      LoomFailureCode.malformed_payload,
      'The host answered with something unreadable; inspecting again is safe.',
    );
  return { outputId: run.mintOutputId(), status: OutcomeStatus.ok, ...readView(answer.body) };
}
