// A schema-valid workspace file to a Workspace, in three passes: the packs and agent ids (every issue
// of the file at once), then the requirement probes (only for a file otherwise sound: a probe spawns
// processes), then the agents' grants against the packs offered.
import { dirname, resolve } from 'node:path';
import { parseDuration } from '@harness/config';
import type { PacksIssue } from '../errors';
import { approvalWaitMs, type WorkspaceFile } from '../schema';
import type { Workspace } from '../types';
import { checkAgentIds, resolveAgents } from './agents';
import { argvSafety, credentialFlow } from './argv-safety';
import { sortIssues } from './issues';
import { buildNotify } from './notify';
import { buildPacks } from './packs';
import { probeRequirements } from './probes';
import { applySandboxMode, loadWalls } from './sandbox';
import type { BuildContext, LoadResult } from './types';

/** Builds the workspace from a file the schema accepted; every issue found, sorted into file order. */
export async function build(raw: WorkspaceFile, ctx: BuildContext): Promise<LoadResult> {
  const issues: PacksIssue[] = [];
  const warnings: PacksIssue[] = [];
  const dir = dirname(resolve(ctx.file));
  const built = buildPacks(
    raw.command_packs ?? [],
    dir,
    {
      ...ctx,
      walls: loadWalls(ctx.options),
      approvalWaitMs: approvalWaitMs(raw.approval_wait),
      ...(raw.approval_timeout === undefined
        ? {}
        : { approvalTimeoutMs: parseDuration(raw.approval_timeout)! }),
    },
    issues,
  );
  argvSafety(raw.command_packs ?? [], ctx, warnings);
  credentialFlow(raw.command_packs ?? [], ctx, warnings);
  checkAgentIds(raw.agents ?? [], ctx, issues);
  const notify = buildNotify(raw.notify, ctx, issues, warnings);
  if (issues.length > 0) return { ok: false, issues: sortIssues(issues) };

  const scope = await probeRequirements(built, ctx, issues, warnings);
  const sandbox = applySandboxMode(
    raw.sandbox_mode ?? 'preferred',
    scope,
    (id) => built.find((b) => b.pack.id === id)?.index ?? 0,
    ctx,
    warnings,
  );
  const agents = resolveAgents(raw.agents ?? [], scope, ctx, issues, warnings);
  if (issues.length > 0) return { ok: false, issues: sortIssues(issues) };

  const sortedWarnings = sortIssues(warnings);
  const workspace: Workspace = Object.freeze({
    file: ctx.file,
    dir,
    packs: Object.freeze(scope.packs),
    unavailable: Object.freeze(scope.unavailable),
    agents: Object.freeze(agents),
    warnings: Object.freeze(sortedWarnings),
    sandbox: Object.freeze(sandbox),
    ...(notify === undefined ? {} : { notify }),
  });
  return { ok: true, workspace, warnings: sortedWarnings };
}
