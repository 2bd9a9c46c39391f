// What a model reads of a call's result when its client hands it the MCP `structuredContent`, as
// Claude Code (for a success) and Codex (always) do: the command's output and the few facts a model
// acts on, and none of the record-keeping (output ids, referents, label sources, byte counts). The
// whole typed outcome (outcome.ts) stays with the result for programs, under MCP `_meta` (mcp.ts,
// `OUTCOME_META_KEY`).
import { z } from 'zod';
import { AnswerReply, defined, executedStatus } from './answer-text';
import type { CallOutcome, ExecutedOutcome, ToolOutcome } from './outcome';
import { Landed, OutcomeStatus } from './outcome-codes';
import { isErrorResult } from './result-text';

const text = () => z.string();

/** One call's reply. Every field but `ok` is left out where it says nothing. */
export const CallReply = z.strictObject({
  /** False for anything but a success: a refusal, a failure, a command that exited non-zero. */
  ok: z.boolean(),
  /** Why it is not a success (`unknown_command`, `approval_required`, `failed`, …); absent on success. */
  code: text().optional(),
  /** A finer reason, where the code has one (`timeout` for `failed`, the policy's for `not_authorized`). */
  reason: text().optional(),
  /** In a batch: the command the call named. */
  command: text().optional(),
  /** A pack command's exit status. */
  exit: z.int().optional(),
  ...AnswerReply.shape,
  /** For an unknown command: the listed commands nearest to the name. */
  nearest: z.array(text()).optional(),
  /** After arguments the command refused: its signature. */
  signature: text().optional(),
  /** What else the status says: timed out, output left out or cut, may have landed, withheld. */
  note: text().optional(),
  hint: text().optional(),
});

/** A batch's reply: one reply per call, in order. */
export const BatchReply = z.strictObject({
  ok: z.boolean(),
  results: z.array(CallReply),
  /** Some answers were left out to fit the output bound. */
  truncated: z.literal(true).optional(),
});

/** What `run_command` and `run_read_command` hand a client as `structuredContent`. */
export const RunCommandReply = z.union([CallReply, BatchReply]);

export type CallReply = z.infer<typeof CallReply>;
export type BatchReply = z.infer<typeof BatchReply>;
export type RunCommandReply = z.infer<typeof RunCommandReply>;

/** The tools whose `structuredContent` is a {@link RunCommandReply}, not the outcome itself. */
export const REPLY_TOOLS: ReadonlySet<string> = new Set(['run_command', 'run_read_command']);

/** The reply of a `run_command` result; undefined for an outcome no call tool returns. */
export function callToolReply(result: ToolOutcome): RunCommandReply | undefined {
  switch (result.status) {
    case OutcomeStatus.batch:
      return {
        ok: !isErrorResult(result),
        results: result.results.map((r) => ({ ...callReply(r), ...defined({ command: r.command }) })),
        ...(result.truncated ? { truncated: true as const } : {}),
      };
    case OutcomeStatus.executed:
    case OutcomeStatus.unknown_command:
    case OutcomeStatus.failed_to_deliver:
    case OutcomeStatus.not_granted:
      return callReply(result);
    default:
      return undefined;
  }
}

/** One call's reply, without its command (a lone call's caller knows what it called). */
function callReply(r: CallOutcome): CallReply {
  switch (r.status) {
    case OutcomeStatus.executed:
      return executedReply(r);
    case OutcomeStatus.unknown_command:
      return {
        ok: false,
        code: OutcomeStatus.unknown_command,
        ...defined({ nearest: r.suggestions?.length ? r.suggestions : undefined, hint: r.hint }),
      };
    case OutcomeStatus.not_granted:
      return { ok: false, code: r.code, ...defined({ reason: r.reasonCode, hint: r.hint }) };
    case OutcomeStatus.failed_to_deliver:
      return {
        ok: false,
        code: r.code,
        ...(r.landed === Landed.unknown
          ? { note: 'may have landed', ...defined({ hint: r.hint }) }
          : defined({ reason: r.reasonCode, message: r.message })),
      };
    default:
      return { ok: false, code: 'unknown', message: JSON.stringify(r satisfies never) };
  }
}

function executedReply(r: ExecutedOutcome): CallReply {
  const ok = !isErrorResult(r);
  const answered = r.outcome.withheld === true ? undefined : r.outcome;
  const { answer, exitCode, notes } = executedStatus(r);
  const code = answered?.code ?? 'withheld';
  return {
    ok,
    ...defined({
      code: ok && code === 'ok' ? undefined : code,
      reason: answered?.reason === code ? undefined : answered?.reason,
      exit: exitCode,
      ...answer,
      signature: r.signature,
      note: notes.length > 0 ? notes.join('; ') : undefined,
      hint: r.hint,
    }),
  };
}
