// A server's listing as manifest rows: each tool one row `<server>.<tool>` (SV-08), its inputs the
// tool's own inputSchema (the broker checks arguments against it before anything is sent, SV-13),
// its outputs the properties of its outputSchema, its effect as the owner declared it (SV-05), its
// help the server's words, bounded and marked as the server's, never as ours.
import type { ManifestRow } from '@harness/protocol';
import type { UpstreamTool } from '@harness/servers';
import { gatedOf, type McpServer, mapToolIds, type Workspace } from '@harness/workspace';
import { definitionHash, definitionJson } from './definition';

/** Most characters of a server's description shown to the model. */
export const SERVER_HELP_MAX = 1000;

/** One tool of one server, as the broker serves it. */
export interface ServedTool {
  readonly server: McpServer;
  /** The manifest id, `<server>.<member>`. */
  readonly id: string;
  /** The name the server lists it under: what goes upstream. */
  readonly upstream: string;
  /** The definition as listed (for the plan an approval binds). */
  readonly definition: UpstreamTool;
  /** Its definition hash (SV-17): the accepted one, when the server pins its tools. */
  readonly hash: string;
  readonly row: ManifestRow;
}

/** A listed tool held back from agents until a person accepts its definition (SV-18). */
export interface QuarantinedTool {
  readonly server: McpServer;
  /** The manifest id it would have, `<server>.<member>`. */
  readonly id: string;
  readonly upstream: string;
  /** The hash of the definition listed now. */
  readonly hash: string;
  /** The definition listed now, as the RFC 8785 JSON text `hash` is over (what a review shows). */
  readonly definition: string;
  /** The hash a person accepted before, when one did: the definition changed since. */
  readonly accepted?: string;
}

/** A listing turned into tools, or the reason it cannot be served (two names on one id, SV-08). */
export type ServedListing =
  | {
      readonly ok: true;
      readonly tools: readonly ServedTool[];
      readonly quarantined: readonly QuarantinedTool[];
    }
  | { readonly ok: false; readonly message: string };

/** The accepted definition hash of each tool of one server, by upstream name. */
export type AcceptedHashes = ReadonlyMap<string, string>;

/** Control characters other than newline and tab, which a description never needs. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * What starts every description of a server's tool: the words after it are the server's, never ours.
 * Which server says them, the tool's id names (`<server>.<tool>`); saying it again would cost every
 * entry of a listing tokens and tell the model nothing more.
 */
export const SERVER_WORDS = 'MCP server says: ';

/** The server's description as the model is shown it: control characters gone, bounded, marked. */
export function serverHelp(tool: UpstreamTool): string {
  const raw = (tool.description ?? '').replace(CONTROL, '').trim();
  const cut = raw.length > SERVER_HELP_MAX ? `${raw.slice(0, SERVER_HELP_MAX)}…` : raw;
  return cut === '' ? '(the MCP server gives no description)' : `${SERVER_WORDS}${cut}`;
}

/** The top-level properties an output schema declares: the fields the signature's `->` names. */
function outputFields(tool: UpstreamTool): string[] | undefined {
  const properties = tool.outputSchema?.properties;
  if (properties === null || typeof properties !== 'object' || Array.isArray(properties)) return undefined;
  const names = Object.keys(properties);
  return names.length === 0 ? undefined : names;
}

/**
 * The rows of one server's listing. With `server.pin`, a tool whose definition hash is not the one
 * in `accepted` is quarantined instead (SV-18): ids are still mapped over the whole listing, so a
 * quarantined tool never frees its id for another.
 */
export function servedTools(
  workspace: Workspace,
  server: McpServer,
  tools: readonly UpstreamTool[],
  accepted: AcceptedHashes,
): ServedListing {
  const mapped = mapToolIds(tools.map((t) => t.name));
  if (!mapped.ok) {
    const pairs = mapped.collisions.map(([id, a, b]) => `"${a}" and "${b}" both map to ${server.id}.${id}`);
    return {
      ok: false,
      message: `MCP server "${server.id}" lists tool names that collide once mapped to ids: ${pairs.join('; ')}; none of its tools is served (docs/servers.md, "Tool ids")`,
    };
  }
  const byName = new Map(tools.map((t) => [t.name, t]));
  const out: ServedTool[] = [];
  const quarantined: QuarantinedTool[] = [];
  for (const [member, upstream] of mapped.byMember) {
    const tool = byName.get(upstream)!;
    const id = `${server.id}.${member}`;
    const hash = definitionHash(tool);
    const pinned = accepted.get(upstream);
    if (server.pin && pinned !== hash) {
      quarantined.push({
        server,
        id,
        upstream,
        hash,
        definition: definitionJson(tool),
        ...(pinned === undefined ? {} : { accepted: pinned }),
      });
      continue;
    }
    const gated = gatedOf(workspace, id, upstream, pinnedReadOnly(server, tool))!;
    const outputs = outputFields(tool);
    // No title: a server's title is more of its words, unmarked, and the id and the description
    // already say what the tool is (an empty title is not listed).
    const row: ManifestRow = {
      id,
      title: '',
      help: serverHelp(tool),
      inputs: tool.inputSchema,
      ...(outputs ? { outputs } : {}),
      effect: gated.effects,
      scope: 'global',
      timeoutMs: server.timeoutMs,
      ...(server.label ? { ifc: server.label as ManifestRow['ifc'] & object } : {}),
    };
    out.push({ server, id, upstream, definition: tool, hash, row });
  }
  return { ok: true, tools: out, quarantined };
}

/**
 * Whether a served tool's definition says `readOnlyHint: true` and was accepted by a person: only
 * then may `trust_annotations` make it a read (SV-07). An unpinned server's annotations never count.
 */
export function pinnedReadOnly(server: McpServer, tool: UpstreamTool): boolean {
  return server.pin && tool.annotations?.readOnlyHint === true;
}

/**
 * The names a server's `tools` and `permission_overrides` keys give that its listing lacks: a
 * warning naming what the server offers (item 1 of docs/servers.md, "Load").
 */
export function unknownToolKeys(server: McpServer, tools: readonly UpstreamTool[]): string | undefined {
  const listed = new Set(tools.map((t) => t.name));
  const keys = [...new Set([...Object.keys(server.tools), ...Object.keys(server.overrides)])];
  const unknown = keys.filter((k) => !listed.has(k));
  if (unknown.length === 0) return undefined;
  return `MCP server "${server.id}": tools/permission_overrides name ${unknown.map((k) => `"${k}"`).join(', ')}, which it does not list; it offers: ${[...listed].join(', ') || '(no tool)'}`;
}
