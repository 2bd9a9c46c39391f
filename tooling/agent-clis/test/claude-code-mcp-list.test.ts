// `claude mcp list` (the real Claude Code) in a project `harness init` set up: the server its
// path-free `.mcp.json` names connects; with a workspace that does not load, it shows the server
// failed, because `harness serve` exits with the load errors before it answers.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { execToEnd, runNode } from '../src/exec';
import { CLAUDE_CODE, repoBins } from '../src/index';
import { makeProject } from '../src/project';
import { installForTests } from './helpers';

const { installed, skip } = await installForTests(CLAUDE_CODE, 'the real Claude Code');

describe.skipIf(skip !== undefined)(`claude mcp list (Claude Code ${CLAUDE_CODE.version})`, () => {
  const dir = tempDir('harness-mcp-list-');
  afterAll(() => dir.cleanup());
  const home = join(dir.path, 'home');
  const project = join(dir.path, 'project');
  const bin = join(dir.path, 'bin');
  // `harness` on PATH, as an installed one is: the entry init writes then names it, with no path.
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, 'harness'),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(repoBins().harness)} "$@"\n`,
  );
  chmodSync(join(bin, 'harness'), 0o755);
  const PATH = `${bin}:${dirname(process.execPath)}:${process.env.PATH ?? ''}`;
  // A headless Claude Code starts a project's servers only when they are approved.
  mkdirSync(join(home, '.claude'), { recursive: true });
  writeFileSync(join(home, '.claude', 'settings.json'), '{"enableAllProjectMcpServers": true}\n');

  const mcpList = () =>
    execToEnd(installed.ok ? installed.bin : '', ['mcp', 'list'], {
      cwd: project,
      env: {
        PATH,
        HOME: home,
        NO_COLOR: '1',
        ANTHROPIC_API_KEY: 'sk-ant-fake-model-key',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        MCP_TIMEOUT: '180000',
      },
      timeoutMs: 240_000,
    });

  it('shows the server of the path-free .mcp.json connected, and failed once the workspace does not load', async () => {
    makeProject(project);
    const init = await execToEnd(process.execPath, [repoBins().harness, 'init', '--client', 'claude-code'], {
      cwd: project,
      env: { PATH, HOME: home, NO_COLOR: '1' },
      timeoutMs: 120_000,
    });
    expect(init.code, init.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8')).mcpServers.harness).toEqual({
      command: 'harness',
      args: ['serve'],
    });
    const healthy = await mcpList();
    expect(healthy.stdout).toContain('harness: harness serve - ✔ Connected');

    const workspace = join(project, '.harness', 'workspace.yaml');
    writeFileSync(workspace, readFileSync(workspace, 'utf8').replace('- pack:git ', '- pack:gti '));
    const broken = await mcpList();
    expect(broken.stdout).toContain('harness: harness serve - ✘ Failed to connect');
    // What the person then runs in the project says why.
    const served = await runNode(repoBins().harness, ['serve'], { home, cwd: project });
    expect(served.code).toBe(3);
    expect(served.stderr).toContain(
      'grant "pack:gti" matches no pack (did you mean "pack:git"?); packs: git, files, search',
    );
  }, 600_000);
});
