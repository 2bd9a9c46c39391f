// A schema-valid workspace file to a Workspace, in three passes: the packs (@harness/packs), the
// agent ids and the notify block (every issue of the file at once), then the requirement probes and
// the sandbox mode (only for a file otherwise sound: a probe spawns processes), then the agents'
// grants against the packs offered.
import { dirname, resolve } from 'node:path';
import { parseDuration } from '@harness/config';
import type { PacksIssue } from '@harness/packs';
import {
  approvalWaitMs,
  type BuildContext,
  buildPackList,
  offerPacks,
  sortIssues,
} from '@harness/packs/loader';
import { checkAgentIds, resolveAgents } from './agents';
import { buildNotify } from './notify';
import type { WorkspaceFile } from './schema';
import { applyServerSandboxMode, buildServers } from './servers';
import type { LoadResult, Workspace } from './types';

/** Builds the workspace from a file the schema accepted; every issue found, sorted into file order. */
export async function build(raw: WorkspaceFile, ctx: BuildContext): Promise<LoadResult> {
  const issues: PacksIssue[] = [];
  const warnings: PacksIssue[] = [];
  const dir = dirname(resolve(ctx.file));
  // The workspace's approval settings are each pack's unless the pack sets its own.
  const packCtx: BuildContext = {
    ...ctx,
    approvalWaitMs: approvalWaitMs(raw.approval_wait),
    ...(raw.approval_timeout === undefined
      ? {}
      : { approvalTimeoutMs: parseDuration(raw.approval_timeout)! }),
  };
  const built = buildPackList(raw.command_packs ?? [], dir, packCtx, issues, warnings);
  const servers = buildServers(
    raw.mcp_servers ?? [],
    built.map((b) => b.pack.id),
    ctx,
    issues,
    warnings,
  );
  checkAgentIds(raw.agents ?? [], ctx, issues);
  const notify = buildNotify(raw.notify, ctx, issues, warnings);
  if (issues.length > 0) return { ok: false, issues: sortIssues(issues) };

  const offered = await offerPacks(built, raw.sandbox_mode ?? 'preferred', ctx, issues, warnings);
  const served = applyServerSandboxMode(servers, raw.sandbox_mode ?? 'preferred', ctx, warnings);
  const agents = resolveAgents(raw.agents ?? [], { ...offered, servers: served }, ctx, issues, warnings);
  if (issues.length > 0) return { ok: false, issues: sortIssues(issues) };

  const sortedWarnings = sortIssues(warnings);
  const workspace: Workspace = Object.freeze({
    file: ctx.file,
    dir,
    packs: Object.freeze(offered.packs),
    unavailable: Object.freeze(offered.unavailable),
    agents: Object.freeze(agents),
    servers: Object.freeze(served),
    warnings: Object.freeze(sortedWarnings),
    sandbox: Object.freeze(offered.sandbox),
    ...(notify === undefined ? {} : { notify }),
  });
  return { ok: true, workspace, warnings: sortedWarnings };
}
