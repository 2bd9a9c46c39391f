// A tool's definition hash (SV-17): what a person accepts when they pin a server's tool, and what an
// approval of one of its calls is bound to (SV-20). SHA-256 over the RFC 8785 encoding of exactly
// the members a server lists and an agent would read: anything else it lists is not hashed.
import { createHash } from 'node:crypto';
import type { UpstreamTool } from '@harness/servers';
import { canonicalJson } from '@harness/store';

/** The members of a listed tool its definition hash covers, in no particular order. */
export const DEFINITION_MEMBERS = [
  'name',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
] as const;

/** The definition a hash covers: the listed tool's {@link DEFINITION_MEMBERS}, absent ones left out. */
export function toolDefinition(tool: UpstreamTool): UpstreamTool {
  const out: Record<string, unknown> = {};
  for (const key of DEFINITION_MEMBERS) if (tool[key] !== undefined) out[key] = tool[key];
  return out as unknown as UpstreamTool;
}

/** The definition hash of a listed tool: lowercase hex SHA-256 of its RFC 8785 JSON (SV-17). */
export function definitionHash(tool: UpstreamTool): string {
  return createHash('sha256').update(definitionJson(tool)).digest('hex');
}

/** The RFC 8785 JSON text a definition hash is over: what a pin keeps, to diff a later definition against. */
export function definitionJson(tool: UpstreamTool): string {
  return canonicalJson(toolDefinition(tool));
}
