// The model's run_command / run_read_command input: one call, or a batch of calls, each read once
// against the zod schemas below.
import { z } from 'zod';
import { isRecord } from './json';
import { LIMITS } from './limits';
import { DeliveryCode } from './outcome-codes';
import { cutId, jsonBytes } from './shape';
import { readInput } from './tool-input';

const COMMAND = 'command must be the name of a listed command.';
const LOOM_ID = 'loomId must be a loom id (a non-empty string without spaces).';
const EXPECTED_VERSION = 'expectedVersion must be a non-negative integer.';

/**
 * A call's arguments: a JSON object of at most `LIMITS.maxArgsBytes`, kept as the model wrote it
 * (zod's object and record schemas copy it, and leave a `__proto__` key out), for the host to check
 * against the command's own schema.
 */
const CallArgs = z
  .custom<Record<string, unknown>>(isRecord, { error: 'args must be a JSON object.' })
  .check((ctx) => {
    const bytes = jsonBytes(ctx.value);
    if (bytes > LIMITS.maxArgsBytes)
      ctx.issues.push({
        code: 'custom',
        input: ctx.value,
        message: `args take at most ${LIMITS.maxArgsBytes} bytes of JSON (found ${bytes}).`,
      });
  })
  .meta({ type: 'object' });

/** One call as the model writes it: a listed command, its arguments, and the loom it acts on. */
export const CallInput = z.strictObject(
  {
    command: z
      .string({ error: COMMAND })
      .min(1)
      .max(256)
      .describe('A command name exactly as list_commands shows it.'),
    // null reads as no arguments, as it always has.
    args: CallArgs.nullish().describe(
      `The command's arguments (at most ${LIMITS.maxArgsBytes / 1024} KiB of JSON).`,
    ),
    loomId: z
      .string({ error: LOOM_ID })
      .regex(/^[^\s\p{Cc}]{1,256}$/u)
      .optional()
      .describe('The loom a command whose target is "loom" acts on.'),
    expectedVersion: z
      .int({ error: EXPECTED_VERSION })
      .nonnegative()
      .optional()
      .describe("Refuse unless the loom is at this version (the loom's write guard)."),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `A call takes command, args, loomId and expectedVersion only (found "${cutId(issue.keys[0] ?? '', 64)}").`
        : 'A call is an object: { command, args?, loomId?, expectedVersion? }.',
  },
);

/** A batch: its calls, each read on its own ({@link CallInput}), so one that does not parse fails alone. */
const BatchInput = z.strictObject(
  {
    calls: z
      .array(z.unknown(), { error: 'calls must be a list of calls.' })
      .min(1, `A batch carries 1 to ${LIMITS.maxBatchCalls} calls (found none).`)
      .max(LIMITS.maxBatchCalls, {
        error: (issue) =>
          `A batch carries at most ${LIMITS.maxBatchCalls} calls (found ${(issue.input as unknown[]).length}); split it. Nothing was sent.`,
      }),
  },
  { error: 'A batch takes only "calls".' },
);

/**
 * The input as a model may write it, and as its JSON Schema lists it: the fields of one call, or
 * `calls`, a batch of them. {@link readCalls} reads it.
 */
export const RunInput = CallInput.partial().extend({
  calls: z
    .array(CallInput.partial())
    .optional()
    .describe(
      `A batch of 1 to ${LIMITS.maxBatchCalls} independent calls (instead of command/args); they run concurrently.`,
    ),
});

/** One call as the model wrote it, read. */
export type ParsedCall = Omit<z.output<typeof CallInput>, 'args'> & { args: Record<string, unknown> };

/** One call of the input: read, or why it cannot be sent. */
export type CallParse = { ok: true; call: ParsedCall } | { ok: false; message: string };

/**
 * The whole input: the calls to deliver (`batch` false for a lone call, which always parses), or
 * why nothing is sent at all.
 */
export type RunRead =
  | { ok: true; batch: boolean; calls: CallParse[] }
  | {
      ok: false;
      code: typeof DeliveryCode.invalid_input | typeof DeliveryCode.batch_too_large;
      message: string;
    };

/**
 * Reads the input: a batch when it has `calls`, one call otherwise. A lone call that does not
 * parse fails the whole input; in a batch, each call that does not parse fails alone, beside the
 * others.
 */
export function readCalls(input: unknown): RunRead {
  const invalid = (message: string) => ({ ok: false, code: DeliveryCode.invalid_input, message }) as const;
  if (!isRecord(input)) return invalid('Give one call { command, args } or a batch { calls: [...] }.');
  if (!('calls' in input)) {
    const lone = readCall(input);
    return lone.ok ? { ok: true, batch: false, calls: [lone] } : invalid(lone.message);
  }
  if ('command' in input) return invalid('Give either command (one call) or calls (a batch), not both.');
  const batch = readInput(BatchInput, input);
  if (!batch.ok) {
    const { issue } = batch;
    return issue.code === 'too_big'
      ? { ok: false, code: DeliveryCode.batch_too_large, message: issue.message }
      : invalid(issue.message);
  }
  return { ok: true, batch: true, calls: batch.value.calls.map(readCall) };
}

function readCall(raw: unknown): CallParse {
  const read = readInput(CallInput, raw);
  if (!read.ok) return { ok: false, message: read.issue.message };
  return { ok: true, call: { ...read.value, args: read.value.args ?? {} } };
}
