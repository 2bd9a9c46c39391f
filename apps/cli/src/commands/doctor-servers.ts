// `harness doctor`'s rows of the workspace's MCP servers: one per server, started as the broker
// starts it and closed again: it answers tools/list with N tools, confined or not and why; a
// server that fails is a failing row naming its error.
import { confinementLine, type Located, readServers, serversLine } from '../servers-report';

type Status = 'ok' | 'warn' | 'fail';

/** One row per MCP server of `workspaceFile` (none when it declares none, or does not load: its own row says so). */
export async function serverChecks(
  workspaceFile: string,
  instanceDir: string | undefined,
  given: Located = {},
): Promise<{ name: string; status: Status; detail: string }[]> {
  const { loadWorkspace } = await import('@harness/workspace');
  const loaded = await loadWorkspace({ file: workspaceFile }, { probe: false });
  if (!loaded.ok || loaded.workspace.servers.length === 0) return [];
  let report: Awaited<ReturnType<typeof readServers>>;
  try {
    report = await readServers(workspaceFile, instanceDir);
  } catch (error) {
    return [{ name: 'mcp servers', status: 'fail', detail: (error as Error).message.split('\n')[0] ?? '' }];
  }
  return report.servers.map((s) => {
    const confinement = confinementLine(s.confinement);
    if (s.state === 'failed') {
      return { name: `server ${s.id}`, status: 'fail', detail: `does not start: ${s.error}; ${confinement}` };
    }
    const held =
      s.quarantined.length === 0
        ? ''
        : `; ${s.quarantined.length} quarantined until a person accepts them (${serversLine(['review', s.id], given)})`;
    const unpinned = s.pinned ? '' : '; warning: pin: false, its tools are served as listed, with no review';
    const warning = s.warning === undefined ? '' : `; warning: ${s.warning}`;
    const quiet = s.warning === undefined && s.pinned && s.quarantined.length === 0;
    return {
      name: `server ${s.id}`,
      status: quiet ? 'ok' : 'warn',
      detail: `starts and answers tools/list with ${s.tools.length + s.quarantined.length} tool(s); ${confinement}${held}${unpinned}${warning}`,
    };
  });
}
