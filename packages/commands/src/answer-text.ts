// A command's answer as a model reads it: the host's body is any JSON the command produced, read
// here once into the text it shows and the few facts the status line names.
import { z } from 'zod';
import { isRecord } from './json';

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
