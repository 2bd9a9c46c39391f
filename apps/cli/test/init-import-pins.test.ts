// `harness init --import` past the files: each imported server started once (confined as its entry
// says), its tools shown with their signature and the server's annotations, `effects: read` written
// only for the tools a person confirmed (`--yes`: those whose readOnlyHint is true, with a comment
// saying so), every listed definition accepted as pinned in the instance's store (an audit event
// each), and the agent granted the server. Against a server written with the SDK
// (fixtures/servers/notes-server.mjs), the real server-memory from npm, and one that cannot start.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installServer, LINUX, MEMORY, needs } from '@harness/test-utils';
import { loadWorkspace } from '@harness/workspace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appDir, baseEnv, bin, type CliRun, loomBin, pathWithout, runCli, sandbox } from './helpers';

const fixture = join(appDir, 'test', 'fixtures', 'servers', 'notes-server.mjs');

/** A .mcp.json holding `servers` (name → entry). */
const mcpJson = (servers: Record<string, unknown>) => `${JSON.stringify({ mcpServers: servers }, null, 2)}\n`;

const NOTES = { command: process.execPath, args: [fixture] };
const BROKEN = { command: '/nonexistent/notes-server', args: ['--stdio'] };

/** Every file under `dir`, with its bytes. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out[path] = readFileSync(path, 'latin1');
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

interface Project {
  readonly box: ReturnType<typeof sandbox>;
  readonly dir: string;
  readonly workspace: string;
  readonly init: (...args: string[]) => Promise<CliRun>;
  /** A PATH without harness, which init's entries then name by this checkout's path. */
  readonly path: string;
  readonly cli: (...args: string[]) => Promise<CliRun>;
}

/** A git repository whose .mcp.json holds `servers`; init and the servers commands run on its instance. */
function project(servers: Record<string, unknown>): Project {
  const box = sandbox();
  const dir = join(box.root, 'project');
  const noHarness = pathWithout(join(box.root, 'path'), ['harness']);
  mkdirSync(dir, { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir, env: { PATH: process.env.PATH ?? '' } });
  writeFileSync(join(dir, '.mcp.json'), mcpJson(servers));
  const workspace = join(dir, '.harness', 'workspace.yaml');
  return {
    box,
    dir,
    workspace,
    path: noHarness,
    init: (...args) =>
      runCli(['init', dir, '--instance', box.instance, ...args], {
        home: box.home,
        env: { PATH: noHarness },
      }),
    cli: (...args) =>
      runCli([...args, '--workspace', workspace, '--instance', box.instance], { home: box.home }),
  };
}

/** The instance's audit rows, as `loom audit tail --json` prints them. */
function auditRows(p: Project): Record<string, unknown>[] {
  const out = execFileSync(
    process.execPath,
    [loomBin, 'audit', 'tail', '--json', '-n', '500', '--instance', p.box.instance],
    { encoding: 'utf8', env: { ...process.env, HOME: p.box.home } },
  );
  return (JSON.parse(out) as { events: Record<string, unknown>[] }).events;
}

/** `harness servers list --json`'s servers. */
async function listed(p: Project): Promise<
  {
    id: string;
    state: string;
    tools: { id: string; effect: string; agents: string[] }[];
    quarantined: unknown[];
  }[]
> {
  // A server that failed makes the list exit 1; its JSON names every server all the same.
  const r = await p.cli('servers', 'list', '--json');
  return JSON.parse(r.stdout).servers;
}

/** The `tools` each server of the workspace declares, and the servers agent coder is granted. */
async function declared(p: Project) {
  const loaded = await loadWorkspace({ file: p.workspace }, { probe: false });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return {
    tools: Object.fromEntries(loaded.workspace.servers.map((s) => [s.id, s.tools])),
    granted: loaded.workspace.agents.find((a) => a.id === 'coder')?.servers ?? [],
  };
}

describe('harness init --import --yes with a server whose tools say read-only, write, and nothing', () => {
  const p = project({ notes: NOTES, broken: BROKEN });
  let before: Record<string, string> = {};
  let run: CliRun;

  beforeAll(() => {
    before = { ...snapshot(p.dir), ...snapshot(p.box.home) };
  });
  afterAll(() => p.box.cleanup());

  it('starts no server and writes nothing under --dry-run, saying a run would start them', async () => {
    const r = await p.init('--import', '--yes', '--dry-run');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('a run then starts each server once, lists its tools');
    expect(r.stdout).toContain('under --dry-run no server is started');
    expect(r.stdout).not.toContain('notes.lookup');
    expect(existsSync(p.box.instance)).toBe(false);
    expect({ ...snapshot(p.dir), ...snapshot(p.box.home) }).toEqual(before);
  });

  it("shows each tool's signature and the server's annotations as its claim, and which it takes for a read", async () => {
    run = await p.init('--import', '--yes');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('import: server notes lists 3 tool(s)');
    expect(run.stdout).toContain('  notes.lookup(title?: string) -> {text}  [global]\n');
    expect(run.stdout).toContain('      the server claims: readOnlyHint: true\n');
    expect(run.stdout).toContain('      read (readOnlyHint from the server, confirmed by --yes)\n');
    expect(run.stdout).toContain('      the server claims: readOnlyHint: false, destructiveHint: true\n');
    expect(run.stdout).toContain(
      '  notes.tidy()  [global]\n      the server gives no annotations\n      write\n',
    );
  });

  it('declares effects: read only for the tool whose readOnlyHint is true, with the comment beside it [SV-07]', async () => {
    const { tools, granted } = await declared(p);
    expect(tools.notes).toEqual({ lookup: 'read' });
    expect(tools.broken).toEqual({});
    expect([...granted].sort()).toEqual(['broken', 'notes']);
    const text = readFileSync(p.workspace, 'utf8');
    expect(text).toMatch(
      /\n {6}lookup: \{ effects: read \} +# readOnlyHint from the server, confirmed by --yes\n/,
    );
    expect(text).not.toMatch(/(save|tidy): \{ effects/);
    expect(text).toContain('      - server:notes ');
  });

  it('accepts every listed definition in the instance, each an audit event of the chain [SV-19]', async () => {
    expect(run.stdout).toContain('import: accepted 3 definition(s) of notes as listed now');
    const pins = auditRows(p).filter((e) => e.phase === 'pin');
    expect(pins.map((e) => [e.action, e.command, (e.payload as { via: string }).via])).toEqual([
      ['server:tool_accepted', 'notes:lookup', 'init'],
      ['server:tool_accepted', 'notes:save', 'init'],
      ['server:tool_accepted', 'notes:tidy', 'init'],
    ]);
    execFileSync(process.execPath, [loomBin, 'audit', 'verify', '--instance', p.box.instance], {
      env: { ...process.env, HOME: p.box.home },
      encoding: 'utf8',
    });
  });

  it('leaves no tool of it quarantined: harness servers list serves each, lookup a read, to coder [SV-18]', async () => {
    const servers = await listed(p);
    const notes = servers.find((s) => s.id === 'notes');
    expect(notes?.quarantined).toEqual([]);
    expect(notes?.tools.map((t) => [t.id, t.effect, t.agents])).toEqual([
      ['notes.lookup', 'read', ['coder']],
      ['notes.save', 'write', ['coder']],
      ['notes.tidy', 'write', ['coder']],
    ]);
    const review = await p.cli('servers', 'review', 'notes', '--json');
    expect(JSON.parse(review.stdout).quarantined).toEqual([]);
  });

  it('keeps the entry of a server that cannot start, accepts nothing of it, and says how to later', async () => {
    expect(run.stdout).toMatch(
      /import: server broken did not list its tools \(.*not found.*\); its entry stays in the workspace, and nothing of it is accepted: see why with harness servers logs broken, then, once it starts, harness servers review broken and harness servers accept broken --all\n/,
    );
    expect(auditRows(p).filter((e) => e.phase === 'pin' && String(e.command).startsWith('broken'))).toEqual(
      [],
    );
    const broken = (await listed(p)).find((s) => s.id === 'broken');
    expect(broken?.state).toBe('failed');
  });

  it('restores every file with --undo and says the accepted definitions stay in the store', async () => {
    const r = await runCli(['init', p.dir, '--undo'], { home: p.box.home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("the tool definitions it accepted stay in the instance's store");
    const projectBefore = Object.fromEntries(
      Object.entries(before).filter(([path]) => path.startsWith(p.dir)),
    );
    expect(snapshot(p.dir)).toEqual(projectBefore);
    expect(auditRows(p).filter((e) => e.phase === 'pin')).toHaveLength(3);
  });
});

describe('harness init --import with no terminal and no --yes', () => {
  const p = project({ notes: NOTES });
  let run: CliRun;
  beforeAll(async () => {
    run = await p.init('--import');
  });
  afterAll(() => p.box.cleanup());

  it('declares no tool a read, whatever the server claims, and says how to [SV-05]', async () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('      the server claims: readOnlyHint: true\n      write\n');
    expect(run.stdout).toContain('no terminal to ask on and no --yes, so every tool stays a write');
    expect(readFileSync(p.workspace, 'utf8')).not.toContain('effects: read');
    expect((await declared(p)).tools.notes).toEqual({});
  });

  it('still accepts the listed definitions, so every tool is served as a write [SV-18]', async () => {
    const notes = (await listed(p)).find((s) => s.id === 'notes');
    expect(notes?.quarantined).toEqual([]);
    expect(notes?.tools.map((t) => t.effect)).toEqual(['write', 'write', 'write']);
  });
});

describe('harness init --import with an instance that serves another workspace', () => {
  const first = project({ notes: NOTES });
  const second = project({ notes: NOTES });
  beforeAll(async () => {
    const r = await first.init('--import', '--yes');
    expect(r.code, r.stderr).toBe(0);
  });
  afterAll(() => {
    first.box.cleanup();
    second.box.cleanup();
  });

  it('writes the entry, starts nothing, accepts nothing in that instance, and says why', async () => {
    const r = await runCli(['init', second.dir, '--instance', first.box.instance, '--import', '--yes'], {
      home: second.box.home,
      env: { PATH: second.path },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`the instance ${first.box.instance} cannot keep the accepted definitions`);
    expect(r.stdout).toContain(
      'import: server notes did not list its tools (it was not started: the instance cannot be opened)',
    );
    expect((await declared(second)).tools.notes).toEqual({});
    expect(auditRows(first).filter((e) => e.phase === 'pin')).toHaveLength(3);
  });
});

/** A word of a shell line, quoted. */
const quoted = (w: string) => `'${w.replace(/'/g, `'\\''`)}'`;

/**
 * `harness init …args` on a terminal (util-linux `script` gives it one), answering each question
 * the moment it is asked: `answers` maps a text of the question to what is typed. Resolves with
 * everything the terminal showed once init exits, and the questions asked.
 */
function onTerminal(
  p: Project,
  args: string[],
  answers: Record<string, string>,
): Promise<{ code: number | null; shown: string; asked: string[] }> {
  const line = [process.execPath, bin, 'init', p.dir, '--instance', p.box.instance, ...args].map(quoted);
  const child = spawn('script', ['-qec', line.join(' '), '/dev/null'], {
    env: baseEnv(p.box.home),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let shown = '';
  const asked: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    shown += chunk.toString('utf8');
    for (const [question, answer] of Object.entries(answers)) {
      if (asked.includes(question) || !shown.includes(question)) continue;
      asked.push(question);
      child.stdin.write(`${answer}\r`);
    }
  });
  return new Promise((resolve) =>
    child.on('close', (code) => {
      child.stdin.destroy();
      resolve({ code, shown, asked });
    }),
  );
}

needs('script', LINUX).describe('harness init --import on a terminal', () => {
  const p = project({ notes: NOTES });
  afterAll(() => p.box.cleanup());

  it('asks per tool and declares a read only the tool the person says only reads, default no [SV-05]', async () => {
    const r = await onTerminal(p, ['--import'], {
      'does notes.lookup only read?': 'y',
      'does notes.save only read?': 'n',
      'does notes.tidy only read?': '',
    });
    expect(r.code, r.shown).toBe(0);
    expect(r.asked).toHaveLength(3);
    expect((await declared(p)).tools.notes).toEqual({ lookup: 'read' });
    expect(readFileSync(p.workspace, 'utf8')).toMatch(
      /\n {6}lookup: \{ effects: read \} +# readOnlyHint from the server, confirmed by you at harness init\n/,
    );
    expect((await listed(p)).find((s) => s.id === 'notes')?.quarantined).toEqual([]);
  });
});

const memory = await installServer(MEMORY);
const installed = {
  what: 'the pinned server-memory installed from the npm registry',
  present: memory.ok,
  install: 'npm must reach the registry (the tests install the servers into ~/.cache/harness-mcp-servers)',
};

needs(installed).describe('harness init --import --yes with the real server-memory from npm', () => {
  const p = project({
    memory: { command: process.execPath, args: [memory.ok ? memory.entry : ''] },
  });
  let run: CliRun;
  beforeAll(async () => {
    run = await p.init('--import', '--yes');
  });
  afterAll(() => p.box.cleanup());

  it('pins every tool it lists and reads only those it annotates readOnlyHint: true [SV-07] [SV-18]', async () => {
    expect(run.code, run.stderr).toBe(0);
    const servers = await listed(p);
    const server = servers.find((s) => s.id === 'memory');
    expect(server?.state).toBe('ready');
    expect(server?.quarantined).toEqual([]);
    expect(server?.tools.length).toBeGreaterThan(3);
    const review = await p.cli('servers', 'review', 'memory', '--json');
    expect(JSON.parse(review.stdout).quarantined).toEqual([]);
    // What the server claims decides nothing but the --yes confirmation: each read is one it annotated.
    const claimed = [
      ...run.stdout.matchAll(/^ {2}memory\.(\w+)\(.*\n {6}the server claims: .*readOnlyHint: true/gm),
    ].map((m) => m[1]);
    expect([...claimed].sort()).toEqual(['open_nodes', 'read_graph', 'search_nodes']);
    const reads = server?.tools.filter((t) => t.effect === 'read').map((t) => t.id.slice('memory.'.length));
    expect(reads).toEqual(claimed);
    expect(Object.keys((await declared(p)).tools.memory ?? {})).toEqual(claimed);
    expect(auditRows(p).filter((e) => e.phase === 'pin')).toHaveLength(server?.tools.length ?? -1);
  });
});
