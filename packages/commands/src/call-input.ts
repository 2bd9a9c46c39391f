// Reading the model's run_command / run_read_command input: one call, or a batch of calls.
import { isRecord } from './json';
import { LIMITS } from './limits';
import { DeliveryCode } from './outcome-codes';
import { cutId, jsonBytes } from './shape';

/** One call as the model wrote it, checked. */
export interface ParsedCall {
  command: string;
  args: Record<string, unknown>;
  loomId?: string;
  expectedVersion?: number;
}

/** One call of the input: checked, or why it cannot be sent. */
export type CallParse = { ok: true; call: ParsedCall } | { ok: false; message: string };

/**
 * The whole input: the calls to deliver (`batch` false for a lone call, which always parses), or
 * why nothing is sent at all.
 */
export type RunInput =
  | { ok: true; batch: boolean; calls: CallParse[] }
  | {
      ok: false;
      code: typeof DeliveryCode.invalid_input | typeof DeliveryCode.batch_too_large;
      message: string;
    };

const CALL_KEYS = new Set(['command', 'args', 'loomId', 'expectedVersion']);

/**
 * Reads the input. A lone call that does not parse fails the whole input; in a batch, each call
 * that does not parse fails alone, beside the others.
 */
export function readRunInput(input: unknown): RunInput {
  if (!isRecord(input))
    return {
      ok: false,
      code: DeliveryCode.invalid_input,
      message: 'Give one call { command, args } or a batch { calls: [...] }.',
    };
  if (!('calls' in input)) {
    const lone = parseCall(input);
    if (!lone.ok) return { ok: false, code: DeliveryCode.invalid_input, message: lone.message };
    return { ok: true, batch: false, calls: [lone] };
  }
  if ('command' in input)
    return {
      ok: false,
      code: DeliveryCode.invalid_input,
      message: 'Give either command (one call) or calls (a batch), not both.',
    };
  if (Object.keys(input).some((k) => k !== 'calls'))
    return { ok: false, code: DeliveryCode.invalid_input, message: 'A batch takes only "calls".' };
  const calls = input.calls;
  if (!Array.isArray(calls))
    return { ok: false, code: DeliveryCode.invalid_input, message: 'calls must be a list of calls.' };
  if (calls.length === 0)
    return {
      ok: false,
      code: DeliveryCode.invalid_input,
      message: `A batch carries 1 to ${LIMITS.maxBatchCalls} calls (found none).`,
    };
  if (calls.length > LIMITS.maxBatchCalls) {
    return {
      ok: false,
      code: DeliveryCode.batch_too_large,
      message: `A batch carries at most ${LIMITS.maxBatchCalls} calls (found ${calls.length}); split it. Nothing was sent.`,
    };
  }
  return { ok: true, batch: true, calls: calls.map(parseCall) };
}

function parseCall(raw: unknown): CallParse {
  if (!isRecord(raw))
    return { ok: false, message: 'A call is an object: { command, args?, loomId?, expectedVersion? }.' };
  for (const k of Object.keys(raw)) {
    if (!CALL_KEYS.has(k)) {
      return {
        ok: false,
        message: `A call takes command, args, loomId and expectedVersion only (found "${cutId(k, 64)}").`,
      };
    }
  }
  const { command, args, loomId, expectedVersion } = raw;
  if (typeof command !== 'string' || command.length === 0 || command.length > 256) {
    return { ok: false, message: 'command must be the name of a listed command.' };
  }
  const a = args ?? {};
  if (!isRecord(a)) return { ok: false, message: 'args must be a JSON object.' };
  const bytes = jsonBytes(a);
  if (bytes > LIMITS.maxArgsBytes) {
    return { ok: false, message: `args take at most ${LIMITS.maxArgsBytes} bytes of JSON (found ${bytes}).` };
  }
  const call: ParsedCall = { command, args: a };
  if (loomId !== undefined) {
    if (typeof loomId !== 'string' || !/^[^\s\p{Cc}]{1,256}$/u.test(loomId)) {
      return { ok: false, message: 'loomId must be a loom id (a non-empty string without spaces).' };
    }
    call.loomId = loomId;
  }
  if (expectedVersion !== undefined) {
    if (
      typeof expectedVersion !== 'number' ||
      !Number.isSafeInteger(expectedVersion) ||
      expectedVersion < 0
    ) {
      return { ok: false, message: 'expectedVersion must be a non-negative integer.' };
    }
    call.expectedVersion = expectedVersion;
  }
  return { ok: true, call };
}
