// One way to wrap a tool: the serve and session layers add behaviour around a tool's `execute`
// (waiting for the embedded host, progress heartbeats) and keep everything the model sees of it.
import type { HarnessTool } from '@harness/commands';

/**
 * `tool` with `execute` in place of its own; its name, description, input schema (the zod schema
 * and the JSON Schema generated from it), effect and annotations kept.
 */
export function withExecute(tool: HarnessTool, execute: HarnessTool['execute']): HarnessTool {
  const { name, description, input, inputSchema, effect, annotations } = tool;
  return { name, description, input, inputSchema, effect, annotations, execute };
}
