// Every answer the command layer gives, built here and nowhere else: one function per kind of the
// protocol's answer union (`@harness/protocol`, docs/protocol.md "Answers"), so each body has one
// producer and the compiler holds each to its kind.
import type { ExitFailure as PackExitFailure, PackRunOutcome } from '@harness/packs';
import type {
  AnswerApproval,
  AnswerBodies,
  AnswerOf,
  ExitFailure,
  HeldReason,
  SpawnStatus,
} from '@harness/protocol';
import type { ComposeOutcome, LoomView, Receipt } from '@harness/store';

/** Nothing ran, nothing landed: why, in the host's words; after `bad-args`, each argument's issue. */
export function refusedAnswer(
  id: string,
  code: AnswerOf<'refused'>['code'],
  reason: string | undefined,
  message: string,
  errors?: AnswerBodies['refused']['errors'],
): AnswerOf<'refused'> {
  return {
    ok: false,
    id,
    code,
    ...(reason === undefined ? {} : { reason }),
    mayHaveLanded: false,
    completed: [],
    kind: 'refused',
    body: errors === undefined ? { message } : { message, errors },
  };
}

/**
 * A call held at the approval gate: waiting for a person (`approval_required`), or refused because
 * a person denied it (`approval_denied`) or nobody decided in time (`approval_expired`). Nothing ran.
 */
export function heldAnswer(
  id: string,
  reason: HeldReason,
  message: string,
  approval: AnswerApproval | undefined,
): AnswerOf<'held'> {
  return {
    ok: false,
    id,
    code: 'refused',
    reason,
    mayHaveLanded: false,
    completed: [],
    kind: 'held',
    body: approval === undefined ? { message } : { message, approval },
  };
}

/** A call its caller cancelled before its process started: nothing ran; the approval it waited for stays pending. */
export function cancelledAnswer(
  id: string,
  message: string,
  approval?: AnswerApproval,
): AnswerOf<'cancelled'> {
  return {
    ok: false,
    id,
    code: 'failed',
    reason: 'cancelled',
    mayHaveLanded: false,
    completed: [],
    kind: 'cancelled',
    body:
      approval === undefined ? { status: 'cancelled', message } : { status: 'cancelled', message, approval },
  };
}

/** The host failed while handling the call (`internal`): whether it may have landed is the caller's to say. */
export function failedAnswer(id: string, message: string, mayHaveLanded: boolean): AnswerOf<'failed'> {
  return { ok: false, id, code: 'internal', mayHaveLanded, completed: [], kind: 'failed', body: { message } };
}

/**
 * The pack language names the same exit failures as the wire, both ways: a name one side adds
 * without the other fails to compile here.
 */
const SAME_EXIT_FAILURES: [PackExitFailure, ExitFailure] extends [ExitFailure, PackExitFailure]
  ? true
  : never = true;
void SAME_EXIT_FAILURES;

/**
 * A pack command whose process ran: its parsed output when it ended well, else how it ended and
 * what it printed. Only a declared read, or a write that failed with an exit code its pack declares
 * changes nothing (`unchangedExitCodes`), is sure to have changed nothing.
 */
export function ranAnswer(
  id: string,
  outcome: PackRunOutcome,
  command: { readonly read: boolean; readonly unchangedExitCodes?: readonly number[] | undefined },
): AnswerOf<'ran'> {
  const unchanged =
    command.read ||
    (outcome.status !== 'ok' &&
      outcome.exitCode !== null &&
      (command.unchangedExitCodes ?? []).includes(outcome.exitCode));
  const envelope = { id, mayHaveLanded: !unchanged, completed: [], kind: 'ran' as const };
  const status = outcome.status satisfies SpawnStatus;
  if (status === 'ok')
    return {
      ok: true,
      ...envelope,
      code: 'ok',
      body: {
        status,
        output: outcome.output,
        stderr: outcome.stderr,
        exitCode: outcome.exitCode,
        durationMs: outcome.durationMs,
      },
    };
  return {
    ok: false,
    ...envelope,
    code: 'failed',
    reason: status,
    body: {
      status,
      message: outcome.message,
      exitCode: outcome.exitCode,
      signal: outcome.signal,
      stdout: outcome.stdout,
      stderr: outcome.stderr,
      timedOut: outcome.timedOut,
      outputExceeded: outcome.outputExceeded,
      durationMs: outcome.durationMs,
      ...(outcome.parseError === undefined ? {} : { parseError: outcome.parseError }),
    },
  };
}

/** The answer to a compose, from what the store did. */
export function composeAnswer(
  id: string,
  outcome: ComposeOutcome,
): AnswerOf<'composed' | 'version_conflict' | 'request_conflict' | 'not_found'> {
  switch (outcome.kind) {
    case 'committed':
      return {
        ...composed(id, outcome.receipt, false, outcome.currentVersion, outcome.displaced),
        completed: outcome.receipt.operation_ids,
      };
    case 'replayed':
      // History is not work done now: a replay completes nothing and displaces nothing (seed 001).
      return composed(id, outcome.receipt, true, outcome.currentVersion, []);
    case 'version_conflict':
      return {
        ok: false,
        id,
        code: 'version_conflict',
        mayHaveLanded: false,
        completed: [],
        kind: 'version_conflict',
        body: {
          loom_id: outcome.loomId,
          expected_version: outcome.expectedVersion,
          current_version: outcome.currentVersion,
          guidance: 'The loom changed. Inspect it (loom.inspect) and reconsider before composing again.',
        },
      };
    case 'request_conflict':
      return {
        ok: false,
        id,
        code: 'request_conflict',
        mayHaveLanded: false,
        completed: [],
        kind: 'request_conflict',
        body: {
          request_id: outcome.requestId,
          guidance:
            'This request_id already names a different committed composition. Recover its receipt (loom.authoring-context) before deciding whether new work is needed.',
        },
      };
    case 'not_found':
      return notFoundAnswer(id, outcome.loomId);
  }
}

function composed(
  id: string,
  receipt: Receipt,
  replayed: boolean,
  currentVersion: number,
  displaced: string[],
): AnswerOf<'composed'> {
  return {
    ok: true,
    id,
    code: 'ok',
    mayHaveLanded: true,
    completed: [],
    kind: 'composed',
    body: { receipt, replayed, current_version: currentVersion, displaced },
  };
}

/** `loom.inspect`'s answer: the loom's version, components and layout. */
export function inspectedAnswer(id: string, view: LoomView): AnswerOf<'inspected'> {
  return { ok: true, id, code: 'ok', mayHaveLanded: false, completed: [], kind: 'inspected', body: view };
}

/** `loom.authoring-context`'s answer: this agent's receipts and the loom the call is bound to. */
export function contextAnswer(id: string, body: AnswerBodies['context']): AnswerOf<'context'> {
  return { ok: true, id, code: 'ok', mayHaveLanded: false, completed: [], kind: 'context', body };
}

/** No loom has the id. */
export function notFoundAnswer(id: string, loomId: string): AnswerOf<'not_found'> {
  return {
    ok: false,
    id,
    code: 'not_found',
    mayHaveLanded: false,
    completed: [],
    kind: 'not_found',
    body: { loom_id: loomId, message: `no loom has the id ${loomId}` },
  };
}
