// `harness init` end to end, through the real built bin: a repository with git, a package.json with
// a pnpm lockfile, a Makefile and a pyproject.toml, and client configs that already hold other
// servers and comments. What it writes, what it keeps byte for byte, what a second run and a dry
// run do, what a broken config stops, and that a real MCP client started as the written entry says
// reaches the standard commands; then `harness doctor` in the project.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectSandbox } from '@harness/exec';
import { needs } from '@harness/test-utils';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parse as parseJsonc } from 'jsonc-parser';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { appDir, baseEnv, bin, type CliRun, pathWithout, runCli, sandbox, structured } from './helpers';

const withGit = needs('git');

const MCP_JSON = `{
  "mcpServers": {
    "other": {
      "command": "other-server",
      "args": ["--stdio"]
    }
  }
}
`;

const VSCODE_JSONC = `// MCP servers of this workspace
{
  /* started by VS Code */
  "servers": {
    // a local tool
    "other": { "type": "stdio", "command": "other-tool", "args": ["--flag"] }, // keep me
  },
  "inputs": [],
}
`;

const CODEX_TOML = `# Codex configuration
model = "o4-mini"  # the default model

# another MCP server
[mcp_servers.other]
command = "other-server"   # on PATH
args = ["--stdio"]
`;

const MAKEFILE = `.PHONY: build test lint
CC := cc
OUT = out:dir
build: deps
\t@echo built
test:
\t@echo tested
lint clean::
\t@true
%.o: %.c
\t$(CC) -c $<
$(OUT): build
`;

/** Every file under `dir` (`.git` left out) with its bytes and modification time. */
function snapshot(dir: string): Record<string, { text: string; mtime: number }> {
  const out: Record<string, { text: string; mtime: number }> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (name === '.git') continue;
      if (statSync(path).isDirectory()) walk(path);
      else out[path] = { text: readFileSync(path, 'utf8'), mtime: statSync(path).mtimeMs };
    }
  };
  walk(dir);
  return out;
}

/** The bin run in `cwd` (runCli runs it in the test's own directory). */
function runIn(cwd: string, args: string[], home: string): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd, env: baseEnv(home), timeout: 50_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

/** The repository every test of the first block works on. */
function makeProject(dir: string): void {
  mkdirSync(join(dir, 'src', 'app'), { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir, env: { PATH: process.env.PATH ?? '' } });
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify(
      {
        name: 'fixture',
        scripts: {
          build: 'tsc',
          test: 'vitest run',
          lint: 'biome check .',
          'test:unit': 'vitest run unit',
          postinstall: 'true',
        },
        devDependencies: { typescript: '^5.9.0', vitest: '^4.1.0' },
      },
      null,
      2,
    )}\n`,
  );
  writeFileSync(join(dir, 'pnpm-lock.yaml'), "lockfileVersion: '9.0'\n");
  writeFileSync(join(dir, 'Makefile'), MAKEFILE);
  writeFileSync(
    join(dir, 'pyproject.toml'),
    '[project]\nname = "app"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n',
  );
  writeFileSync(join(dir, 'src', 'app', '__main__.py'), 'print("app")\n');
  writeFileSync(join(dir, 'notes.txt'), 'a needle in a haystack\n');
}

withGit.describe('harness init in a repository with git, pnpm, a Makefile and Python', () => {
  const box = sandbox();
  const project = join(box.root, 'project');
  const workspace = join(project, '.harness', 'workspace.yaml');

  /** The real MCP client started exactly as the project's .mcp.json says, in the project. */
  async function clientAsMcpJsonSays(): Promise<Client> {
    const entry = JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8')).mcpServers.harness as {
      command: string;
      args: string[];
    };
    const client = new Client({ name: 'harness-init-test', version: '0.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: entry.command,
        args: entry.args,
        cwd: project,
        env: baseEnv(box.home),
        stderr: 'pipe',
      }),
    );
    return client;
  }
  const codex = join(box.home, '.codex', 'config.toml');
  // A PATH without harness, wherever this runs: the entries then run this checkout's bin.
  const noHarness = pathWithout(join(box.root, 'path'), ['harness']);
  const init = (...args: string[]) =>
    runCli(['init', project, ...args], { home: box.home, env: { PATH: noHarness } });
  /** The arguments an entry naming the project carries, read back from the written .vscode/mcp.json. */
  let entryArgs: string[] = [];
  /** The arguments of an entry for a client that starts its server in the project: no path of it. */
  const pathless = [bin, 'serve'];

  beforeAll(() => {
    makeProject(project);
    mkdirSync(join(project, '.vscode'), { recursive: true });
    mkdirSync(join(box.home, '.codex'), { recursive: true });
    writeFileSync(join(project, '.mcp.json'), MCP_JSON);
    writeFileSync(join(project, '.vscode', 'mcp.json'), VSCODE_JSONC);
    writeFileSync(codex, CODEX_TOML);
  });
  afterAll(() => box.cleanup());

  it('prints the unified diff of every file it would write under --dry-run, and writes nothing', async () => {
    const before = { ...snapshot(project), ...snapshot(box.home) };
    const r = await init('--dry-run');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('--- /dev/null\n+++ b/.harness/workspace.yaml\n');
    expect(r.stdout).toContain('+  - standard: git');
    expect(r.stdout).toContain('--- a/.mcp.json\n+++ b/.mcp.json\n');
    expect(r.stdout).toContain('+    "harness": {\n');
    expect(r.stdout).toContain(`--- ${codex}\n+++ ${codex}\n`);
    expect(r.stdout).toContain('+[mcp_servers.harness]\n');
    expect(r.stdout).toContain('--- a/.vscode/mcp.json\n+++ b/.vscode/mcp.json\n');
    expect(r.stdout).toMatch(/dry run: nothing written \(4 file\(s\) would change\)/);
    expect({ ...snapshot(project), ...snapshot(box.home) }).toEqual(before);
  });

  it('writes a workspace of the fitting standard packs, with the scripts and targets it found, that packs check passes', async () => {
    const r = await init();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'found: git repository; package.json (5 script(s): build, test, lint, test:unit, postinstall; pnpm from pnpm-lock.yaml); Python (pyproject.toml, imports from src/); Makefile (4 target(s))',
    );
    expect(r.stdout).toMatch(
      /created +\.harness\/workspace\.yaml: packs git, files, search, jq, node, python, make; agent coder/,
    );
    // No harness on this PATH: the entries run this checkout's bin, and the report says how to change that.
    expect(r.stdout).toContain(
      `note: harness is not on PATH: the entries run node on ${bin}, this machine's path, so a project config that holds one (.mcp.json) works on this machine only; link the bin (sh ${join(appDir, '..', '..', 'scripts', 'link-bins.sh')} links harness into ~/.local/bin) and run harness init again for entries that run plain \`harness serve\``,
    );
    const text = readFileSync(workspace, 'utf8');
    expect(text).toContain('        script: { enum: [build, lint, "test:unit"] }');
    expect(text).toContain('        bin: { enum: [tsc, vitest, biome] }');
    expect(text).toContain('      PYTHONPATH: src ');
    expect(text).toContain('  # gh is left out: ');
    expect(text).toContain('        module: { enum: [app] }');
    expect(text).toContain('        target: { enum: [build, test, lint, clean] }');
    expect(text).toMatch(/^ {6}- git\.commit +# write, waits for approval/m);
    expect(text).toMatch(/^ {6}# - git\.push +# strict, not granted: /m);
    expect(text).toMatch(/^ {6}# - node\.install +# strict, not granted: /m);
    expect(text).toMatch(/^ {6}# - python\.ruff +# not granted: no ruff/m);
    // Every line is a comment or carries one.
    for (const line of text.split('\n').filter((l) => l.trim() !== '')) expect(line).toContain('#');

    const check = await runCli(['packs', 'check', workspace], { home: box.home });
    expect(check.code, check.stdout).toBe(0);
    expect(check.stdout).toMatch(new RegExp(`^ok: ${workspace}: \\d+ pack\\(s\\), 1 agent\\(s\\)$`, 'm'));
    const agent = check.stdout.split('\n').find((l) => l.startsWith('  agent coder: ')) ?? '';
    for (const id of ['git.status', 'git.commit', 'files.read', 'search.grep', 'make.run'])
      expect(agent).toContain(id);
    expect(agent).not.toContain('git.push');

    expect(JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8')).mcpServers.harness.args).toEqual(
      pathless,
    );
    entryArgs = parseJsonc(readFileSync(join(project, '.vscode', 'mcp.json'), 'utf8')).servers.harness
      .args as string[];
    expect(entryArgs).toEqual([
      bin,
      'serve',
      '--workspace',
      workspace,
      '--instance',
      expect.stringMatching(new RegExp(`^${box.home}/\\.local/share/harness/project-[0-9a-f]{8}$`)),
      '--agent',
      'coder',
    ]);
  });

  it('adds its entry to .mcp.json after the other server, keeping every other byte', () => {
    const args = JSON.stringify(pathless, null, 2).replace(/\n/g, '\n      ');
    expect(readFileSync(join(project, '.mcp.json'), 'utf8')).toBe(
      `{
  "mcpServers": {
    "other": {
      "command": "other-server",
      "args": ["--stdio"]
    },
    "harness": {
      "command": "node",
      "args": ${args}
    }
  }
}
`,
    );
  });

  it('adds servers.harness of type stdio to the JSONC .vscode/mcp.json, keeping its comments and trailing commas', () => {
    const args = JSON.stringify(entryArgs, null, 2).replace(/\n/g, '\n      ');
    expect(readFileSync(join(project, '.vscode', 'mcp.json'), 'utf8')).toBe(
      VSCODE_JSONC.replace(
        '// keep me\n',
        `// keep me
    "harness": {
      "type": "stdio",
      "command": "node",
      "args": ${args}
    },
`,
      ),
    );
  });

  it('appends [mcp_servers.harness] to ~/.codex/config.toml, keeping its comments and other server', () => {
    expect(readFileSync(codex, 'utf8')).toBe(
      `${CODEX_TOML}\n[mcp_servers.harness]\ncommand = "node"\nargs = [${pathless.map((a) => JSON.stringify(a)).join(', ')}]\n`,
    );
  });

  it('registers only the clients whose config exists when no --client is named', () => {
    expect(existsSync(join(project, '.cursor'))).toBe(false);
    expect(existsSync(join(project, '.gemini'))).toBe(false);
    expect(existsSync(join(box.home, '.config', 'Claude'))).toBe(false);
  });

  it('changes nothing on a second run, and says so', async () => {
    const before = { ...snapshot(project), ...snapshot(box.home) };
    const r = await init();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('nothing to change: every file is already as harness init would write it');
    expect(r.stdout).toMatch(/unchanged +\.harness\/workspace\.yaml/);
    expect(r.stdout).toMatch(/unchanged +~\/\.codex\/config\.toml/);
    expect({ ...snapshot(project), ...snapshot(box.home) }).toEqual(before);
  });

  it('prints the next steps: restart the clients, open the console, where the audit is', async () => {
    const r = await init();
    const instance = entryArgs[5]!;
    expect(r.stdout).toContain(
      '  1. Restart Claude Code, Codex CLI and VS Code (or reload their MCP servers)',
    );
    expect(r.stdout).toContain(`  2. Open the console to approve the writes`);
    expect(r.stdout).toContain(`node ${bin} console, in the project (or any directory below it)`);
    expect(r.stdout).toMatch(
      new RegExp(
        `  3\\. Every call is audited in ${instance} .*loom\\.js audit tail --follow --instance ${instance}`,
      ),
    );
  });

  it('creates the config of each client named with --client in that client format', async () => {
    const r = await init('--client', 'cursor', '--client', 'gemini', '--client', 'claude-desktop');
    expect(r.code, r.stderr).toBe(0);
    const fresh = (args: string[]) =>
      `${JSON.stringify({ mcpServers: { harness: { command: 'node', args } } }, null, 2)}\n`;
    expect(readFileSync(join(project, '.cursor', 'mcp.json'), 'utf8')).toBe(fresh(entryArgs));
    expect(readFileSync(join(project, '.gemini', 'settings.json'), 'utf8')).toBe(fresh(pathless));
    expect(readFileSync(join(box.home, '.config', 'Claude', 'claude_desktop_config.json'), 'utf8')).toBe(
      fresh(entryArgs),
    );
  });

  it('serves the standard commands to the real MCP client started exactly as .mcp.json says, in the project', async () => {
    const client = await clientAsMcpJsonSays();
    try {
      const listed = structured(await client.callTool({ name: 'list_commands', arguments: {} }));
      const names = (listed.entries as { name: string }[]).map((e) => e.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'git.status',
          'git.diff',
          'git.commit',
          'files.read',
          'search.grep',
          'make.run',
          'node.run',
        ]),
      );
      expect(names).not.toContain('git.push');
      const found = structured(
        await client.callTool({
          name: 'run_read_command',
          arguments: { command: 'search.grep', args: { pattern: 'needle' } },
        }),
      );
      expect(found.status).toBe('executed');
      expect(JSON.stringify(found)).toMatch(/notes\.txt:1:a needle in a haystack/);
    } finally {
      await client.close();
    }
  });

  it("runs the project's confined make target over and over with no approval, and holds a commit for one", async () => {
    const written = readFileSync(workspace, 'utf8');
    expect(written).toContain(
      '    unattended_when_confined: [run]     # confined writes, no approval asked\n',
    );
    expect(written).toContain(
      '      - make.run                        # write, runs confined without approval: Run a make target\n',
    );
    expect(written).toContain(
      '      - git.commit                      # write, waits for approval: Commit the staged changes\n',
    );
    const client = await clientAsMcpJsonSays();
    // Confined only where a sandbox works here (the suite also runs on a PATH without bubblewrap).
    const confined = detectSandbox().available;
    try {
      for (let i = 0; i < 3; i++) {
        const made = structured(
          await client.callTool({
            name: 'run_command',
            arguments: { command: 'make.run', args: { target: 'test' } },
          }),
        );
        // The fixture's Makefile is odd on purpose (make stops at its $(OUT) rule): it ran, unasked.
        if (confined) expect(made).toMatchObject({ status: 'executed', command: 'make.run' });
        else expect(JSON.stringify(made)).toMatch(/approval_required/);
      }
      const commit = structured(
        await client.callTool({
          name: 'run_command',
          arguments: { command: 'git.commit', args: { message: 'x' } },
        }),
      );
      expect(JSON.stringify(commit)).toMatch(/approval_required/);
    } finally {
      await client.close();
    }
  });

  it('is confirmed by harness doctor in the project: the workspace passes packs check and each entry points at it', async () => {
    const r = await runIn(project, ['doctor'], box.home);
    const lines = r.stdout.split('\n');
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^ok {3}project workspace +${workspace} passes packs check: \\d+ pack\\(s\\), agent\\(s\\) coder`,
        ),
      ),
    );
    for (const [id, file] of [
      ['vscode', join(project, '.vscode', 'mcp.json')],
      ['cursor', join(project, '.cursor', 'mcp.json')],
    ] as const) {
      expect(lines).toContainEqual(
        `ok   ${`client ${id}`.padEnd(26)} ${file}: its harness entry serves this project's workspace, ${workspace}`,
      );
    }
    for (const [id, name, file] of [
      ['claude-code', 'Claude Code', join(project, '.mcp.json')],
      ['codex', 'Codex CLI', codex],
      ['gemini', 'Gemini CLI', join(project, '.gemini', 'settings.json')],
    ] as const) {
      expect(lines).toContainEqual(
        `ok   ${`client ${id}`.padEnd(26)} ${file}: its harness entry serves the project ${name} starts it in, this one: ${workspace}`,
      );
    }
  });

  it('keeps the workspace it wrote, stops at one edited since until --keep, and writes it again under --force [SEC-27]', async () => {
    const generated = readFileSync(workspace, 'utf8');
    const edited = `${generated}# my own line\n`;
    writeFileSync(workspace, edited);
    const before = { ...snapshot(project), ...snapshot(box.home) };
    const asked = await init();
    expect(asked.code).toBe(3);
    expect(asked.stdout).toContain(
      'review: .harness/workspace.yaml: it changed since harness init wrote it. What it grants, as harness serve would load it:',
    );
    expect(asked.stderr).toContain('run harness init again with --keep to keep it as it is, or --force');
    expect({ ...snapshot(project), ...snapshot(box.home) }).toEqual(before);

    const kept = await init('--keep');
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toMatch(
      /kept +\.harness\/workspace\.yaml: kept as you reviewed it \(--keep\): harness init asks again only if it changes/,
    );
    const again = await init();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(
      /kept +\.harness\/workspace\.yaml: you kept it after review and it has not changed since; --force writes it again/,
    );
    expect(readFileSync(workspace, 'utf8')).toBe(edited);

    const forced = await init('--force');
    expect(forced.stdout).toMatch(/updated +\.harness\/workspace\.yaml/);
    expect(readFileSync(workspace, 'utf8')).toBe(generated);
  });
});

withGit.describe('harness init refusing a change', () => {
  const box = sandbox();
  const project = join(box.root, 'project');
  afterAll(() => box.cleanup());

  it('writes nothing at all when a client config does not parse, and names the file and the fix', async () => {
    makeProject(project);
    mkdirSync(join(project, '.cursor'), { recursive: true });
    mkdirSync(join(box.home, '.codex'), { recursive: true });
    writeFileSync(join(project, '.mcp.json'), MCP_JSON);
    writeFileSync(join(project, '.cursor', 'mcp.json'), '{\n  "mcpServers": {\n    "x": {"command": "y",}\n');
    writeFileSync(join(box.home, '.codex', 'config.toml'), '[mcp_servers.other]\ncommand = \n');
    const before = { ...snapshot(project), ...snapshot(box.home) };
    const r = await runCli(['init', project], { home: box.home });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      `harness: ${join(project, '.cursor', 'mcp.json')}:4:1: not valid JSON (CloseBraceExpected); fix the file (or move it aside) and run harness init again, or name other clients with --client`,
    );
    expect(r.stderr).toMatch(
      new RegExp(
        `harness: ${join(box.home, '.codex', 'config.toml')}:2:\\d+: not valid TOML \\(.+\\); fix the file`,
      ),
    );
    expect(r.stderr).toContain('harness: nothing written: 2 file(s) cannot take the change (above)');
    expect({ ...snapshot(project), ...snapshot(box.home) }).toEqual(before);
    expect(existsSync(join(project, '.harness'))).toBe(false);
  });

  it('prints its usage on --help and exits 0', async () => {
    const r = await runCli(['init', '--help'], { home: box.home });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(
      /^Usage: harness init \[dir\] \[--client <name>\]\.\.\. \[--dry-run\] \[--force \| --keep\]/,
    );
  });

  it('refuses an unknown --client with a usage error naming the known ones', async () => {
    const r = await runCli(['init', project, '--client', 'emacs'], { home: box.home });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      "harness: --client: unknown client 'emacs'; expected one of claude-code, codex, cursor, vscode, gemini, claude-desktop",
    );
  });
});
