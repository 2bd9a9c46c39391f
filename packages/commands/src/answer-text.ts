// A command's answer as a model reads it: the host's body is any JSON the command produced, read
// here once into the text it shows and the few facts the status line names.
import { z } from 'zod';
import { isRecord } from './json';
import type { ExecutedOutcome } from './outcome';
import { EntryStatus } from './outcome-codes';
import { jsonBytes } from './shape';

/** What the status line says of a pack command's answer, where the answer says it. */
export interface AnswerFacts {
  exitCode: number | undefined;
  timedOut: boolean;
  outputExceeded: boolean;
}

// Each fact on its own: one that is missing or of another type is not there, and leaves the others.
const PackAnswer = z.object({
  exitCode: z.number().optional().catch(undefined),
  timedOut: z.boolean().optional().catch(undefined),
  outputExceeded: z.boolean().optional().catch(undefined),
});

/** The facts of an answer body; none for a body that is not an object. */
export function answerFacts(value: unknown): AnswerFacts {
  const read = PackAnswer.safeParse(value);
  const facts = read.success ? read.data : {};
  return {
    exitCode: facts.exitCode,
    timedOut: facts.timedOut === true,
    outputExceeded: facts.outputExceeded === true,
  };
}

/** What a model is shown of an executed call, in its text and in its reply alike. */
export interface ExecutedStatus {
  /** The answer to show; `undefined` when it was withheld or left out. */
  shown: unknown;
  /** The pack command's exit status, where the answer says it. */
  exitCode: number | undefined;
  /**
   * What its status says beyond its code and exit: how it may have ended (may have landed, output
   * ceiling reached, timed out), then what of its answer is not shown whole (withheld, left out,
   * cut to fit).
   */
  notes: string[];
}

/** An executed call's status, read once for its text and its reply. */
export function executedStatus(r: ExecutedOutcome): ExecutedStatus {
  const answered = r.outcome.withheld === true ? undefined : r.outcome;
  const entry = r.entry;
  const value = entry.status === EntryStatus.admitted ? entry.value : undefined;
  const facts = answerFacts(value);
  const notes: string[] = [];
  if (r.outcome.mayHaveLanded === true && answered?.ok !== true) notes.push('may have landed');
  if (facts.outputExceeded) notes.push('output ceiling reached');
  if (facts.timedOut) notes.push('timed out');
  if (entry.status === EntryStatus.withheld) {
    notes.push(`answer withheld (${entry.reasonCode}): its label passes this run's ceiling`);
  } else if (r.truncated === true) {
    notes.push(`output left out: ${answered?.bodyBytes} bytes do not fit the output bound; ask for less`);
  } else if (value !== undefined && answered !== undefined && answered.bodyBytes > jsonBytes(value)) {
    // Strings inside an answer are cut to a bound (marked …): say so, with the whole size.
    notes.push(`answer cut to fit (… marks each cut; ${answered.bodyBytes} bytes in all)`);
  }
  return { shown: r.truncated === true ? undefined : value, exitCode: facts.exitCode, notes };
}

/** A command's answer as text: a pack command's output (and stderr), or the answer's JSON. */
export function answerText(value: unknown): string {
  if (!isRecord(value)) return typeof value === 'string' ? value : JSON.stringify(value);
  if ('output' in value || 'stdout' in value) {
    const out = outputText('output' in value ? value.output : value.stdout);
    const stderr = typeof value.stderr === 'string' ? value.stderr.replace(/\n$/, '') : '';
    const message =
      value.status !== 'ok' && typeof value.message === 'string' && out === '' && stderr === ''
        ? value.message
        : '';
    return [out, stderr === '' ? '' : `stderr:\n${stderr}`, message].filter((s) => s !== '').join('\n');
  }
  const keys = Object.keys(value);
  if (keys.length === 1 && typeof value.message === 'string') return value.message;
  if (
    typeof value.message === 'string' &&
    keys.every((k) => k === 'message' || value[k] === null || k === 'approval_id' || k === 'expires_at')
  )
    return value.message + (value.expires_at ? ` (expires ${value.expires_at})` : '');
  return JSON.stringify(value);
}

/**
 * A command's output as a model reads it, in its text and in its reply alike: printed text without
 * its last newline, parsed lines (`parse: lines`) one per line as they were printed, other parsed
 * output (JSON) as it is; `undefined` for none.
 */
export function printedOutput(output: unknown): unknown {
  if (typeof output === 'string') return output === '' ? undefined : output.replace(/\n$/, '');
  if (Array.isArray(output) && output.every((l) => typeof l === 'string'))
    return output.length === 0 ? undefined : output.join('\n');
  return output ?? undefined;
}

/** The output as text: parsed JSON as its JSON. */
function outputText(output: unknown): string {
  const shown = printedOutput(output);
  if (shown === undefined) return '';
  return typeof shown === 'string' ? shown : JSON.stringify(shown);
}
