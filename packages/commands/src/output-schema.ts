// Each tool's `structuredContent` as a JSON Schema an MCP client can check it against: generated
// from the zod schemas of outcome.ts and call-reply.ts, never written by hand.
import { z } from 'zod';
import { REPLY_TOOLS, RunCommandReply } from './call-reply';
import { outcomeSchemaOf } from './outcome';
import type { JsonSchema } from './tool';

// Built once per schema: tools/list asks for it on every request.
const generated = new Map<z.ZodType, JsonSchema>();

/**
 * What the tool named `tool` hands an MCP client as `structuredContent`: a call tool's lean reply
 * (call-reply.ts), any other tool's outcome (`ToolOutcome` for a tool of another kind).
 */
export function structuredSchemaOf(tool: string): z.ZodType {
  return REPLY_TOOLS.has(tool) ? RunCommandReply : outcomeSchemaOf(tool);
}

/**
 * The MCP `outputSchema` of the tool named `tool`: the JSON Schema of {@link structuredSchemaOf}.
 * MCP wants `type: "object"` at the root, which a union's
 * schema lacks; every variant is an object, so it is stated beside the `oneOf`. Objects used twice
 * (a call's result alone and in a batch) are written once under `$defs`. There is no `$schema`:
 * MCP reads the schema as draft 2020-12 and the SDK client's Ajv as draft-07, and it uses only
 * keywords both read alike.
 */
export function toolOutputSchema(tool: string): JsonSchema {
  const schema = structuredSchemaOf(tool);
  let json = generated.get(schema);
  if (json === undefined) {
    const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'output', reused: 'ref' });
    json = { type: 'object', ...rest };
    generated.set(schema, json);
  }
  return json;
}
