// The guard every tool's input passes before anything reads it.
import { notDelivered } from './failed-to-deliver';
import { valueNestsDeeperThan } from './json';
import { LIMITS } from './limits';
import type { NotDeliveredOutcome } from './outcome';
import { DeliveryCode } from './outcome-codes';
import type { ToolContext } from './tool';

/** What a model reads for a text or value nested past {@link LIMITS.maxInputDepth}. */
export function tooDeep(): NotDeliveredOutcome {
  return notDelivered(
    DeliveryCode.invalid_input,
    `The tool input nests arrays and objects deeper than ${LIMITS.maxInputDepth} levels; flatten it. Nothing was sent.`,
  );
}

/**
 * Wraps a tool's `execute` so an input nested past {@link LIMITS.maxInputDepth} is refused before
 * the tool walks it: recursive code (validation, `JSON.stringify`) would otherwise throw a
 * `RangeError`, and `execute` never throws for what a model sends.
 */
export function guardInput<O>(
  execute: (input: unknown, context: ToolContext) => Promise<O>,
): (input: unknown, context: ToolContext) => Promise<O | NotDeliveredOutcome> {
  return (input, context) =>
    valueNestsDeeperThan(input, LIMITS.maxInputDepth) ? Promise.resolve(tooDeep()) : execute(input, context);
}
