// The text a model reads for a tool result: the command's output first, then one status line.
// The whole result stays the structured value (MCP `structuredContent`); this is its reading.
import { EXIT_FAILURE_WORDS, isExitFailure } from '@harness/protocol';
import { answerText, executedStatus } from './answer-text';
import type { CallOutcome, ExecutedOutcome, ToolOutcome } from './outcome';
import { Landed, OutcomeStatus } from './outcome-codes';

/**
 * True when a result is not a success: a failure to deliver, an unknown command, a refusal, a
 * command that failed or timed out, an answer withheld. A batch is an error when any call is.
 */
export function isErrorResult(result: ToolOutcome): boolean {
  switch (result.status) {
    case OutcomeStatus.ok:
      return false;
    case OutcomeStatus.executed:
      return result.outcome.withheld === true || result.outcome.ok !== true;
    case OutcomeStatus.batch:
      return result.results.some(isErrorResult);
    case OutcomeStatus.unknown_command:
    case OutcomeStatus.failed_to_deliver:
    case OutcomeStatus.not_granted:
    case OutcomeStatus.refused:
    case OutcomeStatus.failed:
    case OutcomeStatus.uncertain:
    case OutcomeStatus.cancelled:
      return true;
    default:
      // The compiler proves no status is left; a value built past the types is not a success.
      result satisfies never;
      return true;
  }
}

/**
 * The text a framework shows the model for a result. A call's result reads as the command's output
 * followed by one bracketed status line; a batch as one block per call, each headed by its status
 * line. Any other result (a listing, a Loom tool's answer) reads as its JSON.
 */
export function resultText(result: ToolOutcome): string {
  switch (result.status) {
    case OutcomeStatus.batch: {
      const calls = result.results;
      const blocks = calls.map((r, i) => {
        const { body, line } = callText(r);
        return `[${i + 1}/${calls.length} ${line}]${body === '' ? '' : `\n${body}`}`;
      });
      if (result.truncated) blocks.push(TRUNCATED_BATCH);
      return blocks.join('\n');
    }
    case OutcomeStatus.executed:
    case OutcomeStatus.unknown_command:
    case OutcomeStatus.failed_to_deliver:
    case OutcomeStatus.not_granted: {
      const { body, line } = callText(result);
      return body === '' ? `[${line}]` : `${body}\n[${line}]`;
    }
    case OutcomeStatus.ok:
    case OutcomeStatus.refused:
    case OutcomeStatus.failed:
    case OutcomeStatus.uncertain:
    case OutcomeStatus.cancelled:
      return JSON.stringify(result);
    default:
      // The compiler proves no status is left; a value built past the types reads as its JSON.
      return JSON.stringify(result satisfies never);
  }
}

const TRUNCATED_BATCH =
  '[some answers were left out to fit the output bound; run those calls alone or ask for less output]';

/** A text that follows a status line, led by one space; empty when there is none. */
const after = (text: string | undefined): string => (text === undefined ? '' : ` ${text}`);

/** One call's output text and its status line (without brackets). */
function callText(r: CallOutcome): { body: string; line: string } {
  const command = r.command ?? '';
  switch (r.status) {
    case OutcomeStatus.executed:
      return executedText(r);
    case OutcomeStatus.unknown_command: {
      const near =
        r.suggestions !== undefined && r.suggestions.length > 0
          ? `; nearest: ${r.suggestions.join(', ')}`
          : '';
      return { body: '', line: `${command}: unknown_command${near}.${after(r.hint)}` };
    }
    case OutcomeStatus.failed_to_deliver: {
      // Nothing sent says why (`message`); a lost answer says what to do (`hint`).
      const detail = r.landed === Landed.no ? after(r.message) : after(r.hint);
      return {
        body: '',
        line: `${command ? `${command}: ` : ''}failed_to_deliver (${r.code}, landed: ${r.landed}).${detail}`,
      };
    }
    case OutcomeStatus.not_granted:
      return { body: '', line: `${command}: not_granted (${r.reasonCode ?? r.code}).${after(r.hint)}` };
    default:
      return { body: '', line: JSON.stringify(r satisfies never) };
  }
}

/**
 * The first words of an executed call's status line: a named exit failure in a person's words
 * (`tests failed`: the command ran and answered that), else the code with its reason where it has
 * a finer one (`failed (exit_nonzero)`).
 */
function statusHead(code: string, reason: string | undefined): string {
  if (isExitFailure(reason)) return EXIT_FAILURE_WORDS[reason];
  return reason !== undefined && reason !== code ? `${code} (${reason})` : code;
}

function executedText(r: ExecutedOutcome): { body: string; line: string } {
  const answered = r.outcome.withheld === true ? undefined : r.outcome;
  const code = answered?.code ?? '';
  const head = statusHead(code, answered?.reason);
  const { answer, exitCode, notes } = executedStatus(r);
  const parts = [
    head,
    ...(exitCode === undefined ? [] : [`exit ${exitCode}`]),
    ...notes,
    ...(r.signature === undefined ? [] : [`expected ${r.signature}`]),
  ];
  return {
    body: answer === undefined ? '' : answerText(answer),
    line: `${r.command ?? ''}: ${parts.join(', ')}${after(r.hint)}`,
  };
}
