// `harness call <tool> [json | -]`: one tool call through the same session `serve` opens, the result
// printed as JSON. The batch CLI: a script's way to reach the same tools a model does.
import { readFileSync } from 'node:fs';
import { OutcomeStatus, RefusalCode, resultText, type ToolOutcome } from '@harness/commands';
import { parse } from '../args';
import { CliError } from '../errors';
import { sessionFlags, sessionFlagsHelp, sessionOptions } from '../flags';
import { err, out, printJson } from '../output';
import { openSession } from '../session';

const help = `Usage: harness call <tool> [<json> | -] [configuration]

Calls one tool once and prints its result as JSON on stdout. The input is a JSON object given
inline, or read from stdin with '-'; none means {}. Exit 0 when the result is a success (ok, a
batch, a call whose command answered ok), 5 when the call is held for a person's approval
(approval_required: it did not run; approve it with harness approvals approve <id>, then make the
identical call again), 1 otherwise (a command that failed, its tests for one, is a failure: its
status line, e.g. [node.test: tests failed, exit 1], is also printed on stderr). Ctrl-C cancels the call (its command's processes
are ended, the result says cancelled, and the audit records it so) and exits 130; a second
Ctrl-C quits at once.

Example: harness call run_read_command '{"command":"repo.log","args":{"count":3}}'

${sessionFlagsHelp}`;

/** Runs `harness call`. */
export async function callCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, sessionFlags);
  if (values.help) {
    out(help);
    return 0;
  }
  const [tool, raw] = positionals;
  if (tool === undefined)
    throw new CliError('usage', 'call needs a tool name, e.g. harness call list_commands');
  let input: unknown = {};
  if (raw !== undefined) {
    const text = raw === '-' ? readFileSync(0, 'utf8') : raw;
    try {
      input = JSON.parse(text);
    } catch (error) {
      throw new CliError('usage', `the tool input must be JSON: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  const session = await openSession({ ...sessionOptions(values), log: err });
  const interrupt = interruptible();
  try {
    const result = await session.call(tool, input, interrupt.signal);
    printJson(result);
    const code = interrupt.signal.aborted ? INTERRUPTED : exitCodeOf(result);
    // A person running it reads how the command ended in the words a model reads, without the JSON.
    if (code === 1 && result.status === OutcomeStatus.executed) err(statusLine(result));
    return code;
  } finally {
    interrupt.dispose();
    await session.close();
  }
}

/** The exit code after Ctrl-C, as a shell reports a command SIGINT ended (128 + 2). */
const INTERRUPTED = 130;

/**
 * Ctrl-C cancels the call rather than killing this process under its broker: the command's process
 * group is ended, the result (`cancelled`) is printed and audited as such. A second Ctrl-C quits at once.
 */
function interruptible(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const now = () => process.exit(INTERRUPTED);
  const first = () => {
    err('harness call: interrupted: cancelling the call (Ctrl-C again to quit at once)');
    controller.abort();
    process.once('SIGINT', now);
  };
  process.once('SIGINT', first);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', first);
      process.off('SIGINT', now);
    },
  };
}

/** The status line of a result's text (`[node.test: tests failed, exit 1]`): its last line. */
const statusLine = (result: ToolOutcome): string => resultText(result).split('\n').at(-1) ?? '';

/** The exit code of a call held for a person's approval: it did not run (docs/cli.md, "Exit codes"). */
const HELD_FOR_APPROVAL = 5;

/**
 * 0 when the result is a success, {@link HELD_FOR_APPROVAL} when the call waits for a person, 1
 * otherwise: an executed call whose command answered a failure (`tests_failed`, `exit_nonzero`, a
 * refusal) is 1, as its MCP result is an error. A batch, and a call whose answer was withheld, are
 * successes here whatever their commands answered (the result says that in its own fields).
 */
function exitCodeOf(result: ToolOutcome): 0 | 1 | typeof HELD_FOR_APPROVAL {
  switch (result.status) {
    case OutcomeStatus.executed:
      // A withheld answer says nothing of how the command ended: the result says it was withheld.
      if (result.outcome.withheld === true) return 0;
      if (result.outcome.code === RefusalCode.approval_required) return HELD_FOR_APPROVAL;
      // A command that answered a failure (its tests failed, it was refused) is a failure here too.
      return result.outcome.ok ? 0 : 1;
    case OutcomeStatus.ok:
    case OutcomeStatus.batch:
      return 0;
    case OutcomeStatus.failed_to_deliver:
    case OutcomeStatus.unknown_command:
    case OutcomeStatus.not_granted:
    case OutcomeStatus.refused:
    case OutcomeStatus.failed:
    case OutcomeStatus.uncertain:
    case OutcomeStatus.cancelled:
      return 1;
    default:
      // The compiler proves no status is left; a value built past the types is not a success.
      result satisfies never;
      return 1;
  }
}
