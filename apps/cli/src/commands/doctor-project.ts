// `harness doctor`'s rows for a project `harness init` set up, run in it (or below it): the project's
// .harness/workspace.yaml passes packs check, and each MCP client config holding a "harness" entry
// serves that file with a launcher that starts (either form init writes: node on a checkout's entry,
// or npx on the pinned package).
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { CLIENTS, type ClientContext, type ClientSpec, SERVER_NAME } from '../init/clients';
import { launchProblem } from '../init/launch';
import { readJsonEntry } from '../init/merge-json';
import { readTomlEntry } from '../init/merge-toml';
import { findProject } from '../project';

/** One doctor row. */
export interface ProjectCheck {
  readonly name: string;
  readonly status: 'ok' | 'warn' | 'fail';
  readonly detail: string;
}

/**
 * The rows for the project `cwd` lies in (at or below the directory holding
 * `.harness/workspace.yaml`); none outside any project.
 */
export async function projectChecks(cwd: string): Promise<ProjectCheck[]> {
  const project = findProject(cwd);
  if (project === undefined) return [];
  const { workspaceFile } = project;
  const rows = await workspaceRows(workspaceFile);
  const ctx: ClientContext = {
    projectDir: project.dir,
    home: process.env.HOME || homedir(),
    platform: process.platform,
    env: process.env,
  };
  for (const client of CLIENTS) {
    const row = clientRow(client, client.file(ctx), workspaceFile);
    if (row !== undefined) rows.push(row);
  }
  return rows;
}

/**
 * The workspace loads as `harness packs check` loads it (requirements probed); then which writes
 * run confined without approval here, and each listed one that asks, with why.
 */
async function workspaceRows(file: string): Promise<ProjectCheck[]> {
  const { loadWorkspace } = await import('@harness/workspace');
  const loaded = await loadWorkspace({ file }, { probe: true });
  if (!loaded.ok)
    return [
      {
        name: 'project workspace',
        status: 'fail',
        detail: `${file} does not pass packs check (${loaded.issues.length} error(s)); run 'harness packs check ${file}' to see each`,
      },
    ];
  const ws = loaded.workspace;
  const left =
    ws.unavailable.length > 0 ? `; left out here: ${ws.unavailable.map((u) => u.id).join(', ')}` : '';
  const unattended = ws.packs.flatMap((p) => p.commands.filter((c) => c.unattended).map((c) => c.manifestId));
  return [
    {
      name: 'project workspace',
      status: 'ok',
      detail: `${file} passes packs check: ${ws.packs.length} pack(s), agent(s) ${ws.agents.map((a) => a.id).join(', ')}${left}`,
    },
    ...(unattended.length === 0
      ? []
      : [
          {
            name: 'unattended',
            status: 'ok' as const,
            detail: `${unattended.join(', ')} run confined, without approval`,
          },
        ]),
    ...loaded.warnings
      .filter((w) => w.code === 'not_confined')
      .map((w) => ({ name: 'unattended', status: 'warn' as const, detail: w.message })),
  ];
}

/** The client's row: which file holds a harness entry, and whether it serves this project's workspace. */
function clientRow(client: ClientSpec, configFile: string, workspaceFile: string): ProjectCheck | undefined {
  if (!existsSync(configFile)) return undefined;
  const name = `client ${client.id}`;
  const text = readFileSync(configFile, 'utf8');
  const read =
    client.format === 'toml'
      ? readTomlEntry(text, client.key, SERVER_NAME)
      : readJsonEntry(text, client.key, SERVER_NAME);
  if (!read.ok)
    return {
      name,
      status: 'warn',
      detail: `${configFile}: ${read.problem}; ${client.name} cannot read it either`,
    };
  if (read.entry === undefined) return undefined;
  const { command, args } = read.entry as { command?: unknown; args?: unknown };
  const list = Array.isArray(args) ? args.map(String) : [];
  const at = list.indexOf('--workspace');
  const served = at >= 0 ? list[at + 1] : undefined;
  // An entry naming no workspace serves the project its client starts it in: this one, for a
  // client that starts servers in the project.
  const finds = served === undefined && list.includes('serve');
  if (finds && !client.startsInProject)
    return {
      name,
      status: 'warn',
      detail: `${configFile}: its ${SERVER_NAME} entry names no workspace, and ${client.name} is not known to start servers in the project, so it may serve the example workspace; run 'harness init --client ${client.id}' here to name this project's`,
    };
  if (!finds && served !== workspaceFile)
    return {
      name,
      status: 'warn',
      detail: `${configFile}: its ${SERVER_NAME} entry serves ${served ?? 'no --workspace (the example workspace)'}, not ${workspaceFile}; run 'harness init --client ${client.id}' here to point it at this one`,
    };
  const problem = launchProblem(command, list);
  if (problem !== undefined)
    return {
      name,
      status: problem.status,
      detail: `${configFile}: its ${SERVER_NAME} entry ${problem.detail}`,
    };
  return {
    name,
    status: 'ok',
    detail: finds
      ? `${configFile}: its ${SERVER_NAME} entry serves the project ${client.name} starts it in, this one: ${workspaceFile}`
      : `${configFile}: its ${SERVER_NAME} entry serves this project's workspace, ${workspaceFile}`,
  };
}
