// A command's answer as a model reads it: the reply's fields that show the admitted answer, read
// once here from the answer's kind, its text read from those fields, and the few facts the status
// line names.
import { isExitFailure } from '@harness/protocol';
import { z } from 'zod';
import type { AdmittedEntry, ExecutedOutcome } from './outcome';
import { EntryStatus } from './outcome-codes';
import { jsonBytes } from './shape';

const text = () => z.string();

/**
 * What a model is shown of an answer's value, in its reply and (read from these fields) its text:
 * - a pack command's spawn: what it printed (`output`: its output, or its stdout when it did not
 *   end well) and its `stderr`, each without its last newline, and the host's words on how it ended
 *   (`message`), which are shown only where it printed nothing;
 * - the host's words about the call (`message`), with the approval it waits for and when that
 *   expires;
 * - anything else, whole, as `output` (a Loom answer, a refusal naming each argument, a command's
 *   own result).
 */
export const AnswerReply = z.strictObject({
  /** What the command printed (lines joined by newlines), or the JSON it printed, parsed. */
  output: z.unknown().optional(),
  stderr: text().optional(),
  /** The host's own words, where it ran nothing or printed nothing. */
  message: text().optional(),
  /** The approval a person must give before the identical call runs once. */
  approval: text().optional(),
  expires: text().optional(),
});

/** The fields of a reply that show an admitted answer. */
export type AnswerReply = z.infer<typeof AnswerReply>;

/** Drops the keys whose value is undefined, so a reply carries only what it says. */
export function defined<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** What a model is shown of an admitted answer's (bounded) value, by its kind. */
export function answerReply(entry: AdmittedEntry): AnswerReply {
  switch (entry.kind) {
    case 'ran': {
      const body = entry.value;
      if (body === undefined) return { output: body };
      const stderr = body.stderr.replace(/\n$/, '');
      const output = printedOutput(body.status === 'ok' ? body.output : body.stdout);
      const printedNothing = output === undefined && stderr === '';
      return defined({
        output,
        stderr: stderr === '' ? undefined : stderr,
        message: printedNothing && body.status !== 'ok' ? body.message : undefined,
      });
    }
    case 'held':
    case 'cancelled': {
      const body = entry.value;
      if (body === undefined) return { output: body };
      // A cancelled call's approval stays pending, and its expiry is not the model's to act on.
      const expires = entry.kind === 'held' ? (body.approval?.expires_at ?? undefined) : undefined;
      return defined({ message: body.message, approval: body.approval?.id, expires });
    }
    case 'refused':
      // After `bad-args` the issues are the point: the whole value.
      return entry.value === undefined || entry.value.errors !== undefined
        ? { output: entry.value }
        : { message: entry.value.message };
    case 'failed':
      return entry.value === undefined ? { output: entry.value } : { message: entry.value.message };
    case 'tool_result': {
      // An MCP server's tool: its text, else its structured content, else the host's words.
      const body = entry.value;
      if (body === undefined) return { output: body };
      const output = body.text !== '' ? body.text : body.structured;
      return defined({ output, message: output === undefined ? body.message : undefined });
    }
    default:
      return { output: entry.value };
  }
}

/**
 * An answer's reply fields as text: what was printed (stderr under its heading), or the value's
 * JSON; where neither was there, the host's words (with the approval's expiry).
 */
export function answerText(reply: AnswerReply): string {
  const out = reply.output === undefined ? '' : asText(reply.output);
  const words =
    out === '' && reply.stderr === undefined && reply.message !== undefined
      ? reply.message + (reply.expires ? ` (expires ${reply.expires})` : '')
      : '';
  return [out, reply.stderr === undefined ? '' : `stderr:\n${reply.stderr}`, words]
    .filter((s) => s !== '')
    .join('\n');
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
  if (entry?.kind === 'tool_result' && entry.value !== undefined)
    return {
      exitCode: undefined,
      timedOut: entry.value.status === 'timeout',
      outputExceeded: entry.value.outputExceeded,
    };
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
  /** The reply fields of the answer to show; `undefined` when it was withheld or left out. */
  answer: AnswerReply | undefined;
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
  // A command that exited with a named failure ran to its end, as one that exited ok did.
  if (r.outcome.mayHaveLanded === true && answered?.ok !== true && !isExitFailure(answered?.reason))
    notes.push('may have landed');
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
  const answer =
    r.truncated === true || admitted === undefined || value === undefined ? undefined : answerReply(admitted);
  return { answer, exitCode: facts.exitCode, notes };
}
