// The workspace's agents: unique ids, and each agent's grants resolved against the packs offered.
import { PacksErrorCode as Code, type PacksIssue } from '../errors';
import { resolveGrantList } from '../grants';
import type { WorkspaceFile } from '../schema';
import type { Agent, Pack, UnavailablePack } from '../types';
import type { CheckContext } from './types';

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
          Code.DUPLICATE_ID,
          ['agents', ai, 'id'],
          `agent id "${a.id}" is declared twice: here and at ${ctx.file}:${first.line}:${first.column}`,
        ),
      );
    } else seenAgents.set(a.id, ai);
  });
}

/** Resolves each agent's grants against the offered and left-out packs; issues and warnings name the agent. */
export function resolveAgents(
  rawAgents: readonly RawAgent[],
  scope: { readonly packs: readonly Pack[]; readonly unavailable: readonly UnavailablePack[] },
  ctx: CheckContext,
  issues: PacksIssue[],
  warnings: PacksIssue[],
): Agent[] {
  const agents: Agent[] = [];
  rawAgents.forEach((a, ai) => {
    const grants = a.grants ?? [];
    const r = resolveGrantList(scope, grants, (gi) => {
      const p = ctx.loc.at(['agents', ai, 'grants', gi]);
      return { file: ctx.file, line: p.line, column: p.column, path: ['agents', ai, 'grants', gi] };
    });
    const named = (m: string) => `agent "${a.id}": ${m}`;
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
      }),
    );
  });
  return agents;
}
