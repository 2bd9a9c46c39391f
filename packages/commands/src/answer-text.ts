// A command's answer as a model reads it: what its text and its reply show of the admitted answer,
// read once here from the answer's kind, and the few facts the status line names.
import type { AdmittedEntry, ExecutedOutcome } from './outcome';
import { EntryStatus } from './outcome-codes';
import { jsonBytes } from './shape';

/**
 * What a model is shown of an answer's value, in its text and its reply alike:
 * - `printed`, a pack command's spawn: what it printed (its output, or its stdout when it did not end
 *   well) and its stderr, each without its last newline, and the host's words on how it ended, which
 *   are shown only where it printed nothing;
 * - `message`, the host's words about the call, with the approval it waits for and when that expires;
 * - `value`, anything else, whole (a Loom answer, a refusal naming each argument, a command's own
 *   result).
 */
export type ShownAnswer =
  | { form: 'printed'; output: unknown; stderr: string | undefined; ended: string | undefined }
  | { form: 'message'; message: string; approval: string | undefined; expires: string | undefined }
  | { form: 'value'; value: unknown };

/** What a model is shown of an admitted answer's (bounded) value, by its kind. */
export function shownAnswer(entry: AdmittedEntry): ShownAnswer {
  switch (entry.kind) {
    case 'ran': {
      const body = entry.value;
      if (body === undefined) return { form: 'value', value: body };
      const stderr = body.stderr.replace(/\n$/, '');
      return {
        form: 'printed',
        output: printedOutput(body.status === 'ok' ? body.output : body.stdout),
        stderr: stderr === '' ? undefined : stderr,
        ended: body.status === 'ok' ? undefined : body.message,
      };
    }
    case 'held':
    case 'cancelled': {
      const body = entry.value;
      if (body === undefined) return { form: 'value', value: body };
      // A cancelled call's approval stays pending, and its expiry is not the model's to act on.
      const expires = entry.kind === 'held' ? (body.approval?.expires_at ?? undefined) : undefined;
      return { form: 'message', message: body.message, approval: body.approval?.id, expires };
    }
    case 'refused':
      // After `bad-args` the issues are the point: the whole value.
      return entry.value === undefined || entry.value.errors !== undefined
        ? { form: 'value', value: entry.value }
        : words(entry.value.message);
    case 'failed':
      return entry.value === undefined ? { form: 'value', value: entry.value } : words(entry.value.message);
    default:
      return { form: 'value', value: entry.value };
  }
}

/** The host's words alone. */
const words = (message: string): ShownAnswer => ({
  form: 'message',
  message,
  approval: undefined,
  expires: undefined,
});

/** A shown answer as text: what was printed (stderr under its heading), the host's words, or the value's JSON. */
export function answerText(shown: ShownAnswer): string {
  switch (shown.form) {
    case 'printed': {
      const out = shown.output === undefined ? '' : asText(shown.output);
      // Where nothing was printed (an empty line included), the host's words say how it ended.
      const ended = out === '' && shown.stderr === undefined ? (shown.ended ?? '') : '';
      return [out, shown.stderr === undefined ? '' : `stderr:\n${shown.stderr}`, ended]
        .filter((s) => s !== '')
        .join('\n');
    }
    case 'message':
      return shown.message + (shown.expires ? ` (expires ${shown.expires})` : '');
    case 'value':
      return asText(shown.value);
  }
}

/** A value as text: a string as it is, anything else as its JSON. */
const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

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

/** What the status line says of a pack command's spawn, where its answer says it. */
interface SpawnFacts {
  exitCode: number | undefined;
  timedOut: boolean;
  outputExceeded: boolean;
}

/** The facts of an admitted answer: a spawn's exit status and how it ended; none for any other kind. */
function spawnFacts(entry: AdmittedEntry | undefined): SpawnFacts {
  if (entry?.kind !== 'ran' || entry.value === undefined)
    return { exitCode: undefined, timedOut: false, outputExceeded: false };
  const body = entry.value;
  return {
    exitCode: body.exitCode ?? undefined,
    timedOut: body.status !== 'ok' && body.timedOut,
    outputExceeded: body.status !== 'ok' && body.outputExceeded,
  };
}

/** What a model is shown of an executed call, in its text and in its reply alike. */
export interface ExecutedStatus {
  /** The answer to show; `undefined` when it was withheld or left out. */
  shown: ShownAnswer | undefined;
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
  const admitted = entry.status === EntryStatus.admitted ? entry : undefined;
  const facts = spawnFacts(admitted);
  const notes: string[] = [];
  if (r.outcome.mayHaveLanded === true && answered?.ok !== true) notes.push('may have landed');
  if (facts.outputExceeded) notes.push('output ceiling reached');
  if (facts.timedOut) notes.push('timed out');
  const value = admitted?.value;
  if (entry.status === EntryStatus.withheld) {
    notes.push(`answer withheld (${entry.reasonCode}): its label passes this run's ceiling`);
  } else if (r.truncated === true) {
    notes.push(`output left out: ${answered?.bodyBytes} bytes do not fit the output bound; ask for less`);
  } else if (value !== undefined && answered !== undefined && answered.bodyBytes > jsonBytes(value)) {
    // Strings inside an answer are cut to a bound (marked …): say so, with the whole size.
    notes.push(`answer cut to fit (… marks each cut; ${answered.bodyBytes} bytes in all)`);
  }
  const shown =
    r.truncated === true || admitted === undefined || value === undefined ? undefined : shownAnswer(admitted);
  return { shown, exitCode: facts.exitCode, notes };
}
