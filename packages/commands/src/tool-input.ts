// The guard every tool's input passes before anything reads it.
import { valueNestsDeeperThan } from './json';
import { LIMITS } from './limits';
import type { ToolContext, ToolResult } from './tool';

/** What a model reads for a text or value nested past {@link LIMITS.maxInputDepth}. */
export function tooDeep(): ToolResult {
  return {
    status: 'failed_to_deliver',
    landed: 'no',
    code: 'invalid_input',
    message: `The tool input nests arrays and objects deeper than ${LIMITS.maxInputDepth} levels; flatten it. Nothing was sent.`,
  };
}

/**
 * Wraps a tool's `execute` so an input nested past {@link LIMITS.maxInputDepth} is refused before
 * the tool walks it: recursive code (validation, `JSON.stringify`) would otherwise throw a
 * `RangeError`, and `execute` never throws for what a model sends.
 */
export function guardInput(
  execute: (input: unknown, context: ToolContext) => Promise<ToolResult>,
): (input: unknown, context: ToolContext) => Promise<ToolResult> {
  return (input, context) =>
    valueNestsDeeperThan(input, LIMITS.maxInputDepth) ? Promise.resolve(tooDeep()) : execute(input, context);
}
