// Building a tool from its zod input schema: the JSON Schema a model reads is generated from it, and
// every input passes the depth guard before the tool reads it.
import type { z } from 'zod';
import { toolInputSchema } from './input-schema';
import type { NotDeliveredOutcome, ToolOutcome } from './outcome';
import type { HarnessTool, ToolAnnotations, ToolContext } from './tool';
import { guardInput } from './tool-input';

/** What a tool is made of: {@link HarnessTool} without its generated `inputSchema`. */
export interface ToolSpec<In, Out extends ToolOutcome> {
  name: string;
  description: string;
  /** The input as a model writes it; the tool reads its input against it (`readInput`). */
  input: z.ZodType<unknown, In>;
  effect: 'read' | 'write';
  annotations: ToolAnnotations;
  /**
   * Runs one call with the input as it came: the tool reads it once, where the run's policy has
   * allowed the call (a refused call is refused whatever its input).
   */
  execute(input: unknown, context: ToolContext): Promise<Out>;
}

/**
 * The tool `spec` describes: its `inputSchema` generated from `spec.input`, its `execute` refusing an
 * input nested past `LIMITS.maxInputDepth` before anything walks it.
 */
export function defineTool<In, Out extends ToolOutcome>(
  spec: ToolSpec<In, Out>,
): HarnessTool<In, Out | NotDeliveredOutcome> {
  const { name, description, input, effect, annotations } = spec;
  const execute = guardInput((raw, context) => spec.execute(raw, context));
  return { name, description, input, inputSchema: toolInputSchema(input), effect, annotations, execute };
}
