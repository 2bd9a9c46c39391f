// The project is found from where a command stands: `harness init` in a fixture project (HOME and
// XDG_DATA_HOME in temp directories, a `harness` shim on PATH), then, from a subdirectory of it,
// `harness call` holds a write for approval in the project's own instance, `harness approvals list`
// shows it, `harness doctor` checks the project, and `harness serve`, started as the written
// .mcp.json says, serves the project's commands to a real MCP client. A flag still wins, and outside
// any project nothing changes.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectInstance } from '@harness/config/instance';
import { needs } from '@harness/test-utils';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findProject } from '../src/project';
import { baseEnv, bin, runCli, sandbox, structured } from './helpers';

const withNpm = needs('npm', 'git');

withNpm.describe('a project found from a subdirectory of it', () => {
  const box = sandbox();
  let project = '';
  let below = '';
  let env: Record<string, string> = {};
  /** The project's instance, as init names it in its next steps. */
  let instance = '';
  const workspace = () => join(project, '.harness', 'workspace.yaml');
  const line = () => `harness: project ${project} (workspace .harness/workspace.yaml, instance ${instance})`;
  const run = (args: string[], cwd = below) => runCli(args, { home: box.home, env, cwd });

  beforeAll(async () => {
    mkdirSync(join(box.root, 'project', 'src', 'deep'), { recursive: true });
    project = realpathSync(join(box.root, 'project'));
    below = join(project, 'src', 'deep');
    writeFileSync(join(project, 'package.json'), '{"name": "fixture", "scripts": {"build": "true"}}\n');
    // A repository: git's writes ask a person (a build, confined, would run without one).
    execFileSync('git', ['init', '-q'], { cwd: project });
    writeFileSync(join(project, '.mcp.json'), '{}\n');
    mkdirSync(join(box.home, '.codex'), { recursive: true });
    writeFileSync(join(box.home, '.codex', 'config.toml'), '');
    // `harness` on PATH, as a linked bin puts it there: this build, whatever runs it.
    const shims = join(box.root, 'bin');
    mkdirSync(shims);
    writeFileSync(join(shims, 'harness'), `#!/bin/sh\nexec '${process.execPath}' '${bin}' "$@"\n`);
    chmodSync(join(shims, 'harness'), 0o755);
    env = { PATH: `${shims}:${process.env.PATH ?? ''}`, XDG_DATA_HOME: join(box.root, 'data') };
    const init = await run(['init'], project);
    expect(init.code, init.stderr + init.stdout).toBe(0);
    instance = /Every call is audited in (\S+) /.exec(init.stdout)?.[1] ?? '';
    expect(instance).toMatch(new RegExp(`^${box.root}/data/harness/project-[0-9a-f]{8}$`));
  });
  afterAll(() => box.cleanup());

  it('writes .mcp.json and the Codex entry with plain harness serve, no path, when harness is on PATH', () => {
    const mcp = readFileSync(join(project, '.mcp.json'), 'utf8');
    expect(JSON.parse(mcp)).toEqual({ mcpServers: { harness: { command: 'harness', args: ['serve'] } } });
    expect(mcp).not.toContain('/');
    // Codex passes its servers HOME and PATH but not XDG_DATA_HOME: the entry names it to pass on.
    expect(readFileSync(join(box.home, '.codex', 'config.toml'), 'utf8')).toBe(
      '[mcp_servers.harness]\ncommand = "harness"\nargs = ["serve"]\nenv_vars = ["XDG_DATA_HOME"]\n',
    );
  });

  it("holds a write for approval in the project's instance, and approvals list there shows it", async () => {
    const call = await run(['call', 'run_command', '{"command":"git.add","args":{"path":"package.json"}}']);
    expect(call.code, call.stderr).toBe(5);
    expect(call.stderr.split('\n')[0]).toBe(line());
    const id = /approvals approve (apr-[0-9a-f]+)/.exec(call.stdout)?.[1];
    expect(id).toBeDefined();

    const list = await run(['approvals', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stderr).toBe(`${line()}\n`);
    expect(list.stdout).toMatch(new RegExp(`^${id}  pending  git\\.add  tier cautious  agent coder `, 'm'));
  });

  it('lets --instance win over the project, and says nothing of the project then', async () => {
    const other = join(box.root, 'other-instance');
    const list = await run(['approvals', 'list', '--instance', other]);
    expect(list.code).toBe(3);
    expect(list.stderr).not.toContain('harness: project');
    expect(list.stderr).toContain(`no instance at ${other} (chosen by --instance)`);
  });

  it('opens the default instance outside any project, as before', async () => {
    const list = await run(['approvals', 'list'], box.root);
    expect(list.code).toBe(3);
    expect(list.stderr).not.toContain('harness: project');
    expect(list.stderr).toContain(`no instance at ${box.root}/data/harness/default (chosen by default)`);
  });

  it("checks the project's workspace and instance in harness doctor", async () => {
    const doctor = await run(['doctor']);
    expect(doctor.stderr.split('\n')[0]).toBe(line());
    expect(doctor.stdout).toMatch(
      new RegExp(
        `^ok +configuration +no host configuration: the project ${project} \\(instance ${instance}, chosen by project; serves agent "coder" of ${workspace()}\\)$`,
        'm',
      ),
    );
    expect(doctor.stdout).toMatch(
      new RegExp(`^ok +project workspace +${workspace()} passes packs check`, 'm'),
    );
    expect(doctor.stdout).toContain(
      `its harness entry serves the project Claude Code starts it in, this one: ${workspace()}`,
    );
  });

  it("serves the project's commands to a real MCP client that starts harness serve as .mcp.json says", async () => {
    const entry = JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8')).mcpServers.harness;
    const transport = new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      cwd: below,
      env: baseEnv(box.home, env),
      stderr: 'pipe',
    });
    let log = '';
    transport.stderr?.on('data', (c: Buffer) => {
      log += c.toString('utf8');
    });
    const client = new Client({ name: 'harness-project-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      const listed = structured(await client.callTool({ name: 'list_commands', arguments: {} }));
      const names = (listed.entries as { name: string }[]).map((e) => e.name);
      expect(names).toEqual(expect.arrayContaining(['node.run', 'files.read', 'search.grep']));
      expect(log.split('\n')[0]).toBe(line());
    } finally {
      await client.close();
    }
  });
});

describe('findProject', () => {
  const box = sandbox();
  afterAll(() => box.cleanup());
  const project = (name: string, workspace: string): string => {
    const dir = join(box.root, name);
    mkdirSync(join(dir, '.harness'), { recursive: true });
    mkdirSync(join(dir, 'a', 'b'), { recursive: true });
    writeFileSync(join(dir, '.harness', 'workspace.yaml'), workspace);
    return realpathSync(dir);
  };
  const env = { HOME: '/home/ann', XDG_DATA_HOME: '/data' };

  it('finds the nearest directory holding .harness/workspace.yaml, upward from where it starts', () => {
    const dir = project('one', 'agents:\n  - id: me\n    grants: []\n');
    const found = findProject(join(dir, 'a', 'b'), env);
    expect(found).toEqual({
      dir,
      workspaceFile: join(dir, '.harness', 'workspace.yaml'),
      instanceDir: projectInstance(dir, env),
      agent: 'me',
    });
    expect(found?.instanceDir).toMatch(/^\/data\/harness\/one-[0-9a-f]{8}$/);
  });

  it('takes the agent harness init writes when the workspace has several agents, or does not parse', () => {
    const several = project('several', 'agents:\n  - id: a\n  - id: b\n');
    expect(findProject(several, env)?.agent).toBe('coder');
    const broken = project('broken', 'agents: [\n');
    expect(findProject(broken, env)?.agent).toBe('coder');
  });

  it('finds nothing outside any project, nor in a directory named like the file', () => {
    mkdirSync(join(box.root, 'odd', '.harness', 'workspace.yaml'), { recursive: true });
    expect(findProject(join(box.root, 'odd'), env)).toBeUndefined();
  });
});
