// The workspace's agents: unique ids, and each agent's grants resolved against the packs offered.
import { PacksErrorCode as Code, type Pack, type PacksIssue, type UnavailablePack } from '@harness/packs';
import { type CheckContext, packsIssue } from '@harness/packs/loader';
import { resolveGrantList } from './grants';
import type { WorkspaceFile } from './schema';
import type { Agent } from './types';

type RawAgent = NonNullable<WorkspaceFile['agents']>[number];

/** Pushes an issue for each agent id declared twice. */
export function checkAgentIds(rawAgents: readonly RawAgent[], ctx: CheckContext, issues: PacksIssue[]): void {
  const seenAgents = new Map<string, number>();
  rawAgents.forEach((a, ai) => {
    const e = seenAgents.get(a.id);
    if (e !== undefined) {
      const first = ctx.loc.at(['agents', e, 'id']);
      issues.push(
        ctx.issue(
          Code.duplicate_id,
          ['agents', ai, 'id'],
          `agent id "${a.id}" is declared twice: here and at ${ctx.file}:${first.line}:${first.column}`,
          { kind: 'agent', id: a.id, first },
        ),
      );
    } else seenAgents.set(a.id, ai);
  });
}

/** Resolves each agent's grants against the offered and left-out packs; issues and warnings name the agent. */
export function resolveAgents(
  rawAgents: readonly RawAgent[],
  scope: {
    readonly packs: readonly Pack[];
    readonly unavailable: readonly UnavailablePack[];
    /** Packs whose requirement failed (each already a load error). */
    readonly failed?: readonly UnavailablePack[];
    /** The MCP servers the workspace declares: `server:<id>` and `<server>.<tool>` grants name them. */
    readonly servers?: readonly { readonly id: string }[];
  },
  ctx: CheckContext,
  issues: PacksIssue[],
  warnings: PacksIssue[],
): Agent[] {
  const agents: Agent[] = [];
  rawAgents.forEach((a, ai) => {
    const grants = a.grants ?? [];
    const at = (gi: number) => {
      const p = ctx.loc.at(['agents', ai, 'grants', gi]);
      return { file: ctx.file, line: p.line, column: p.column };
    };
    const named = (m: string) => `agent "${a.id}": ${m}`;
    // A grant of a pack whose requirement failed names a pack that exists but is unavailable: say
    // that, rather than "matches no pack" for a pack the file declares.
    const failedGrants = new Set<number>();
    grants.forEach((grant, gi) => {
      const f = failedPackOf(grant, scope.failed ?? []);
      if (!f) return;
      failedGrants.add(gi);
      issues.push(
        packsIssue(
          Code.requirement_missing,
          named(`grant "${grant}" names an unavailable pack: "${f.id}" is unavailable because ${f.reason}`),
          ['agents', ai, 'grants', gi],
          { pack: f.id, binary: f.binary, grant },
          at(gi),
        ),
      );
    });
    const offered = grants.filter((_, gi) => !failedGrants.has(gi));
    const index = grants.flatMap((_, gi) => (failedGrants.has(gi) ? [] : [gi]));
    const r = resolveGrantList(scope, offered, (i) => {
      const gi = index[i] ?? i;
      return { path: ['agents', ai, 'grants', gi], ...at(gi) };
    });
    if (!r.ok) {
      for (const i of r.issues) issues.push({ ...i, message: named(i.message) });
      return;
    }
    for (const w of r.warnings) warnings.push({ ...w, message: named(w.message) });
    agents.push(
      Object.freeze({
        id: a.id,
        scopes: Object.freeze([...(a.scopes ?? [])]),
        grants: Object.freeze([...grants]),
        commands: Object.freeze([...r.commands]),
        servers: Object.freeze([...r.servers]),
        builtins: a.builtins ?? true,
      }),
    );
  });
  return agents;
}

/** The failed pack a grant (`pack:<id>` or `<id>.<command>`) names, if any. */
function failedPackOf(grant: string, failed: readonly UnavailablePack[]): UnavailablePack | undefined {
  const id = grant.startsWith('pack:') ? grant.slice('pack:'.length) : grant.split('.')[0];
  return grant.startsWith('pack:') || grant.includes('.') ? failed.find((f) => f.id === id) : undefined;
}
