import { type DetailsOf, editDistance, type IssuePath } from '@harness/errors';
import {
  allCommandIds,
  getPack,
  type PackScope,
  PacksErrorCode,
  type PacksIssue,
  type PacksIssueDetails,
  type UnavailablePack,
  unavailableFor,
} from '@harness/packs';
import { type IssuePlace, listForMessage, packsIssue } from '@harness/packs/loader';
import type { Workspace } from './types';

/** What {@link resolveGrants} returns: the manifest ids granted, or why the grants are wrong. */
export type GrantResult =
  | {
      readonly ok: true;
      /** Manifest ids the grants carry, sorted, without duplicates (a `<server>.<tool>` grant as written). */
      readonly commands: readonly string[];
      /** Servers granted whole (`server:<id>`), sorted: every tool they list (CP-69). */
      readonly servers: readonly string[];
      /** Grants naming a pack left out of this machine's workspace (optional, requirement unmet). */
      readonly warnings: readonly PacksIssue[];
    }
  | { readonly ok: false; readonly issues: readonly PacksIssue[] };

/**
 * Resolves a list of grants to manifest ids (seed 003, decisions 3 and 4):
 * - `pack:<id>` carries every `read` command of the pack, now and as the pack grows, and never a
 *   write (undeclared effects are writes); a pack with no read command is an error (it would grant
 *   nothing; CP-75), naming its writes to grant one by one;
 * - `<pack>.<command>` carries that one command, read or write;
 * - `server:<id>` carries every tool of that MCP server, with no effect filter (CP-69: an honest
 *   asymmetry with `pack:`, since only the listing says which tools exist);
 * - `<server>.<tool>` carries that one tool; the tool is checked against the server's listing when
 *   it is read (the listing is the server's, at run time);
 * - anything else, `pack:` without an id, or a name that matches nothing is an error listing what
 *   exists (an agent silently granted nothing looks like a model that chose not to act).
 * A grant naming a pack that was left out (optional, binary missing) is a warning, not an error.
 */
export function resolveGrantList(
  scope: PackScope & { readonly servers?: readonly { readonly id: string }[] },
  grants: readonly string[],
  at: (index: number) => IssuePlace & { readonly path?: IssuePath } = () => ({}),
): GrantResult {
  const issues: PacksIssue[] = [];
  const warnings: PacksIssue[] = [];
  const out = new Set<string>();
  const wholeServers = new Set<string>();
  const serverIds = (scope.servers ?? []).map((s) => s.id);
  const packIds = scope.packs.map((p) => p.id);
  const all = allCommandIds(scope);
  grants.forEach((grant, index) => {
    const { path = [index], ...place } = at(index);
    const fail = <C extends PacksErrorCode>(
      code: C,
      message: string,
      details: DetailsOf<PacksIssueDetails, C>,
    ) => issues.push(packsIssue(code, message, path, details, place));
    const gone = (u: UnavailablePack) =>
      warnings.push(
        packsIssue(
          PacksErrorCode.requirement_missing,
          `grant "${grant}" carries nothing on this machine: pack "${u.id}" was left out because ${u.reason}`,
          path,
          { pack: u.id, binary: u.binary, grant },
          place,
        ),
      );
    if (serverGrant(grant, serverIds, out, wholeServers, fail)) return;
    if (grant.startsWith('pack:')) {
      const id = grant.slice('pack:'.length);
      if (id === '') {
        fail(
          PacksErrorCode.grant_unknown,
          `grant "pack:" names no pack: expected pack:<id>; ${packsForMessage(packIds, scope.unavailable)}`,
          { grant, expected: packIds },
        );
        return;
      }
      const pack = getPack(scope, id);
      if (!pack) {
        const u = scope.unavailable.find((x) => x.id === id);
        if (u) {
          gone(u);
          return;
        }
        fail(
          PacksErrorCode.grant_unknown,
          `grant "${grant}" matches no pack${nearest(id, packIds)}; ${packsForMessage(packIds, scope.unavailable)}`,
          { grant, expected: packIds },
        );
        return;
      }
      const reads = pack.commands.filter((c) => c.effects === 'read');
      if (reads.length === 0) {
        const writes = pack.commands.map((c) => c.manifestId);
        fail(
          PacksErrorCode.grant_empty,
          `grant "${grant}" matches nothing: pack:<id> carries read commands only and "${id}" has none; grant its writes by name: ${listForMessage(writes)}`,
          { grant, pack: id, writes },
        );
        return;
      }
      for (const c of reads) out.add(c.manifestId);
      return;
    }
    const dot = grant.indexOf('.');
    if (dot > 0) {
      if (all.includes(grant)) {
        out.add(grant);
        return;
      }
      const u = unavailableFor(scope, grant);
      if (u) {
        gone(u);
        return;
      }
      const pack = getPack(scope, grant.slice(0, dot));
      const expected = pack ? pack.commands.map((c) => c.manifestId) : all;
      const unlisted = pack?.unlisted?.find((u) => u.command === grant);
      if (unlisted) {
        const id = grant.slice(dot + 1);
        fail(
          PacksErrorCode.grant_unknown,
          `grant "${grant}" names a command this workspace does not offer: it takes input "${unlisted.input}" from a list the workspace gives, and it gives none; list the values it may take (input_overrides: { ${id}: { ${unlisted.input}: { enum: [...] } } } on pack "${pack?.id}"), or remove the grant`,
          { grant, expected },
        );
        return;
      }
      fail(
        PacksErrorCode.grant_unknown,
        pack
          ? `grant "${grant}" names no command of pack "${pack.id}"; its commands: ${listForMessage(expected)}`
          : `grant "${grant}" names no command; commands: ${listForMessage(expected)}`,
        { grant, expected },
      );
      return;
    }
    fail(
      PacksErrorCode.grant_unknown,
      `grant "${grant}" is not a grant: expected pack:<id>, <pack>.<command>, server:<id> or <server>.<tool>; ${packsForMessage(packIds, scope.unavailable)}`,
      { grant, expected: packIds },
    );
  });
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, commands: [...out].sort(), servers: [...wholeServers].sort(), warnings };
}

/**
 * A grant naming an MCP server: `server:<id>` (the server whole, into `whole`) or `<server>.<tool>`
 * (that tool, into `out`; the listing says later whether it exists). True when `grant` is one, its
 * issue pushed through `fail` when it names no declared server.
 */
function serverGrant(
  grant: string,
  serverIds: readonly string[],
  out: Set<string>,
  whole: Set<string>,
  fail: (
    code: typeof PacksErrorCode.grant_unknown,
    message: string,
    details: { grant: string; expected: readonly string[] },
  ) => void,
): boolean {
  if (grant.startsWith('server:')) {
    const id = grant.slice('server:'.length);
    if (serverIds.includes(id)) whole.add(id);
    else
      fail(
        PacksErrorCode.grant_unknown,
        `grant "${grant}" matches no MCP server${id === '' ? '' : nearestOf(id, serverIds, 'server:')}; ${serversForMessage(serverIds)}`,
        { grant, expected: serverIds },
      );
    return true;
  }
  const dot = grant.indexOf('.');
  if (dot > 0 && grant.length > dot + 1 && serverIds.includes(grant.slice(0, dot))) {
    out.add(grant);
    return true;
  }
  return false;
}

/** The packs a grant could name, for a message: `packs: a, b`, or how to declare one when there is none. */
function packsForMessage(ids: readonly string[], unavailable: readonly UnavailablePack[]): string {
  if (ids.length > 0) return `packs: ${listForMessage(ids)}`;
  if (unavailable.length > 0)
    return `no pack is available (left out: ${listForMessage(unavailable.map((u) => u.id))})`;
  return 'the workspace declares no pack; declare one under command_packs, e.g. command_packs: [{ id: dev, commands: [...] }]';
}

/**
 * The manifest ids an agent may run: `agentOrGrants` is an agent id declared in the workspace
 * (its grants were checked at load) or a list of grants to resolve now. An unknown agent id is an
 * error listing the agents.
 */
export function resolveGrants(workspace: Workspace, agentOrGrants: string | readonly string[]): GrantResult {
  if (typeof agentOrGrants !== 'string') return resolveGrantList(workspace, agentOrGrants);
  const agent = workspace.agents.find((a) => a.id === agentOrGrants);
  if (!agent) {
    const agents = workspace.agents.map((a) => a.id);
    return {
      ok: false,
      issues: [
        packsIssue(
          PacksErrorCode.unknown_agent,
          `unknown agent "${agentOrGrants}"; agents: ${listForMessage(agents)}`,
          [],
          { agent: agentOrGrants, expected: agents },
        ),
      ],
    };
  }
  return resolveGrantList(workspace, agent.grants);
}

/** ` (did you mean "pack:<id>"?)` for the one pack id within two edits of `id`, else nothing. */
function nearest(id: string, packIds: readonly string[]): string {
  return nearestOf(id, packIds, 'pack:');
}

/** ` (did you mean "<prefix><id>"?)` for the one id within two edits of `id`, else nothing. */
function nearestOf(id: string, ids: readonly string[], prefix: string): string {
  const near = ids.filter((p) => editDistance(id, p) <= 2);
  return near.length === 1 ? ` (did you mean "${prefix}${near[0]}"?)` : '';
}

/** The servers a `server:` grant could name, for a message. */
function serversForMessage(ids: readonly string[]): string {
  return ids.length > 0
    ? `servers: ${listForMessage(ids)}`
    : 'the workspace declares no MCP server; declare one under mcp_servers (docs/servers.md)';
}
