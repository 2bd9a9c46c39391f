// One way to wrap a tool: the serve and session layers add behaviour around a tool's `execute`
// (waiting for the embedded host, progress heartbeats) and keep everything the model sees of it.
import type { HarnessTool } from '@harness/commands';

/** `tool` with `execute` in place of its own; its name, description, schema, effect and annotations kept. */
export function withExecute(tool: HarnessTool, execute: HarnessTool['execute']): HarnessTool {
  const { name, description, inputSchema, effect, annotations } = tool;
  return { name, description, inputSchema, effect, annotations, execute };
}
