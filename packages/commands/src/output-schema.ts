// Each tool's outcome as a JSON Schema an MCP client can check `structuredContent` against:
// generated from the zod schemas of outcome.ts, never written by hand.
import { z } from 'zod';
import { outcomeSchemaOf, type ToolOutcome } from './outcome';
import type { JsonSchema } from './tool';

// Built once per schema: tools/list asks for it on every request.
const generated = new Map<z.ZodType<ToolOutcome>, JsonSchema>();

/**
 * The MCP `outputSchema` of the tool named `tool`: the JSON Schema of its outcome union (of
 * `ToolOutcome` for a tool of another kind). MCP wants `type: "object"` at the root, which a union's
 * schema lacks; every variant is an object, so it is stated beside the `oneOf`. Objects used twice
 * (a call's result alone and in a batch) are written once under `$defs`. There is no `$schema`:
 * MCP reads the schema as draft 2020-12 and the SDK client's Ajv as draft-07, and it uses only
 * keywords both read alike.
 */
export function toolOutputSchema(tool: string): JsonSchema {
  const schema = outcomeSchemaOf(tool);
  let json = generated.get(schema);
  if (json === undefined) {
    const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'output', reused: 'ref' });
    json = { type: 'object', ...rest };
    generated.set(schema, json);
  }
  return json;
}
