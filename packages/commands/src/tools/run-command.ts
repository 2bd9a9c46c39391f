// run_command and run_read_command: one call or a batch, from the model's input to the host and
// back to one bounded result (seed 000 "run_command").
import type { Measurement } from '@harness/ifc';
import type { RunProgress } from '@harness/protocol';
import type { z } from 'zod';
import { batchResult } from '../batch-result';
import { RunInput, readCalls } from '../call-input';
import { loneCallResult, shapeAnswer } from '../call-result';
import { defineTool } from '../define-tool';
import { deliverCall } from '../deliver-call';
import { failedToDeliver, notConfigured, policyRefusal } from '../failed-to-deliver';
import type { HostClient } from '../host/types';
import { LIMITS } from '../limits';
import { mapLimited } from '../map-limited';
import type { RunCommandOutcome } from '../outcome';
import { DeliveryCode } from '../outcome-codes';
import { catalogFailure, freshCatalog, heldCatalog } from '../run-catalog';
import type { HarnessTool, ToolContext } from '../tool';

/** `run_command` or `run_read_command`: one call or a batch in, the tools' shared outcome out. */
export type RunCommandTool = HarnessTool<z.input<typeof RunInput>, RunCommandOutcome>;

/** The `run_command` tool: any listed command, judged by policy as a write. */
export function runCommandTool(client: HostClient | undefined, outputBound: number): RunCommandTool {
  return defineTool({
    name: 'run_command',
    description: `Run one host command { command, args, loomId?, expectedVersion? } or a batch { calls: [...] } of 1 to ${LIMITS.maxBatchCalls} independent calls (at most ${LIMITS.maxInFlight} run at once). Only commands list_commands shows can run; the command may change the person's data.`,
    input: RunInput,
    effect: 'write',
    annotations: {
      title: 'Run host commands',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    },
    execute: (input, ctx) => runCalls('run_command', input, ctx, client, outputBound),
  });
}

/** The `run_read_command` tool: granted reads only, judged by policy as a read, enforced by the host. */
export function runReadCommandTool(client: HostClient | undefined, outputBound: number): RunCommandTool {
  return defineTool({
    name: 'run_read_command',
    description: `Run host commands that only read: the same input as run_command, for commands whose effect is "read" and that list_commands marks readOnlyGranted: true. The host enforces read-only execution.`,
    input: RunInput,
    effect: 'read',
    annotations: {
      title: 'Run read-only host commands',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    },
    execute: (input, ctx) => runCalls('run_read_command', input, ctx, client, outputBound),
  });
}

async function runCalls(
  tool: 'run_command' | 'run_read_command',
  input: unknown,
  ctx: ToolContext,
  client: HostClient | undefined,
  outputBound: number,
): Promise<RunCommandOutcome> {
  const run = ctx.run;
  const readOnly = tool === 'run_read_command';
  const refused = policyRefusal(run, tool, ctx, readOnly ? 'read' : 'write');
  if (refused) return refused;
  if (!client) return notConfigured(run);
  const parsed = readCalls(input);
  if (!parsed.ok) return failedToDeliver(run, parsed.code, parsed.message);
  if (ctx.signal?.aborted)
    return failedToDeliver(run, DeliveryCode.cancelled, 'The turn was cancelled; nothing was sent.');
  // The label of the whole input: what the model had seen when it wrote these arguments.
  const queryLabel = run.observations.context;
  // A read-only run is judged against the host's grants as they are now, never a held listing.
  const read = readOnly ? await freshCatalog(run, client, ctx) : await heldCatalog(run, client, ctx);
  if (!read.ok) return catalogFailure(run, read.code);
  const { catalog } = read;

  const { calls } = parsed;
  let done = 0;
  // A single call reports its host's progress as it runs; a batch reports its calls settling, and
  // each of its calls that waits for a person's decision (a person must hear of those).
  let reported = 0;
  const report = ctx.onProgress;
  const runProgress =
    report === undefined
      ? undefined
      : (command: string, p: RunProgress) => {
          if (parsed.batch && p.approval === undefined) return;
          reported++;
          report({
            progress: reported,
            message: progressMessage(command, p),
            elapsedMs: p.elapsedMs,
            outputBytes: p.outputBytes,
            ...(p.approval === undefined ? {} : { approval: p.approval }),
          });
        };
  const settlements = await mapLimited(calls, LIMITS.maxInFlight, async (call) => {
    const settled = await deliverCall(call, readOnly, catalog, client, ctx, runProgress);
    done++;
    // Progress keeps increasing after a single call's own reports.
    const progress = done + reported;
    report?.({ progress, total: Math.max(calls.length, progress) });
    return settled;
  });

  // Output ids are minted in the calls' order (the batch's own first), whatever order calls settled in.
  const batchId = parsed.batch ? run.mintOutputId() : undefined;
  const measured: Measurement<unknown>[] = [];
  const results = settlements.map((s) => {
    const outputId = run.mintOutputId();
    return s.kind === 'unanswered'
      ? { outputId, ...s.result }
      : shapeAnswer(run, s, queryLabel, outputId, measured);
  });
  // One observation for the whole batch: each answer was measured against the label the model had
  // when it wrote the calls, never one raised by a sibling answer.
  run.observations.observeBatch(measured);

  if (batchId !== undefined) return batchResult(batchId, results, outputBound);
  return loneCallResult(results[0] as (typeof results)[number], outputBound);
}

/**
 * One progress report's message: how long a call has run and its output so far, or, while it waits
 * for a person's decision, which approval and how a person gives it.
 */
function progressMessage(command: string, p: RunProgress): string {
  const seconds = `${(p.elapsedMs / 1000).toFixed(1)}s`;
  if (p.approval !== undefined)
    return `${command} waits for approval ${p.approval.id} (${seconds} so far, until ${p.approval.waitsUntil}); a person approves it with: ${p.approval.approve}`;
  return `${command} running for ${seconds}, ${p.outputBytes} bytes of output so far`;
}
