// What is approved is what runs: a call's plan resolves its program once, hashes the file's bytes,
// the working directory's real path and the project files the command runs as code (`plan_inputs`),
// and the run starts exactly the file the plan hashed. Real files, real processes, a real race.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { previewPackCall, runPackCommand } from '@harness/packs';
import { needs, tempDir } from '@harness/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { loadWorkspace, type Workspace } from '../src/index';
import { loadErrors } from './helpers';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function scratch(): string {
  const dir = tempDir('packs-approved-');
  cleanups.push(dir.cleanup);
  return dir.path;
}

async function load(text: string, dir: string): Promise<Workspace> {
  const file = join(dir, 'workspace.yaml');
  writeFileSync(file, text);
  const r = await loadWorkspace({ file }, { probe: false });
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.workspace;
}

/** An executable `tool` in `dir` that prints `word`. */
function tool(dir: string, word: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'tool');
  writeFileSync(file, `#!/bin/sh\necho ${word}\n`, { mode: 0o755 });
  return file;
}

describe('plan_inputs in the pack language', () => {
  it("joins the pack's plan_inputs and the command's own, in that order, once each", async () => {
    const dir = scratch();
    const ws = await load(
      `sandbox_mode: off
command_packs:
  - id: p
    plan_inputs: [Makefile]
    commands:
      - { id: a, argv: [make], plan_inputs: [rules.mk, Makefile] }
      - { id: b, argv: [make] }
`,
      dir,
    );
    expect(ws.packs[0]?.commands.map((c) => [c.id, c.planInputs])).toEqual([
      ['a', ['Makefile', 'rules.mk']],
      ['b', ['Makefile']],
    ]);
  });

  it('refuses a plan input outside the pack cwd, saying what it expected', async () => {
    expect(
      await loadErrors(`command_packs:
  - id: p
    commands:
      - { id: a, argv: [make], plan_inputs: [../Makefile, /etc/passwd] }
`),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:4:46: command_packs[0].commands[0].plan_inputs[0]: expected a path relative to the pack cwd with no ".." segment, e.g. Makefile or .cargo/config.toml, found "../Makefile"",
        "workspace.yaml:4:59: command_packs[0].commands[0].plan_inputs[1]: expected a path relative to the pack cwd with no ".." segment, e.g. Makefile or .cargo/config.toml, found "/etc/passwd"",
      ]
    `);
  });

  it('declares the project files each standard pack runs as code', async () => {
    const dir = scratch();
    const ws = await load(
      `command_packs:
  - { standard: make, cwd: ., input_overrides: { run: { target: { enum: [deploy] } } } }
  - standard: node
    cwd: .
    input_overrides: { run: { script: { enum: [build] } }, exec_bin: { bin: { enum: [tsc] } } }
  - { standard: python, cwd: ., input_overrides: { run_module: { module: { enum: [app] } } } }
  - { standard: rust, cwd: . }
`,
      dir,
    );
    const declared = Object.fromEntries(
      ws.packs.flatMap((p) =>
        p.commands.filter((c) => c.planInputs.length > 0).map((c) => [c.manifestId, c.planInputs]),
      ),
    );
    const py = ['pyproject.toml', 'pytest.ini', 'setup.cfg', 'tox.ini', 'conftest.py'];
    const cargo = ['Cargo.toml', '.cargo/config.toml'];
    expect(declared).toEqual({
      'make.run': ['GNUmakefile', 'makefile', 'Makefile'],
      'node.test': ['package.json'],
      'node.run': ['package.json'],
      'node.install': ['package.json'],
      'node.exec_bin': ['package.json'],
      'python.pytest': py,
      'python.mypy': py,
      'python.run_module': py,
      'rust.check': cargo,
      'rust.build': cargo,
      'rust.test': cargo,
      'rust.clippy': cargo,
    });
  });
});

describe('the plan of a call', () => {
  it("covers the program's bytes, the cwd's real path and each plan input's bytes, a missing one as absent [SEC-25]", async () => {
    const dir = scratch();
    const bin = join(dir, 'bin');
    const program = tool(bin, 'one');
    writeFileSync(join(dir, 'Makefile'), 'deploy:\n\techo deploy\n');
    const ws = await load(
      `sandbox_mode: off
command_packs:
  - id: p
    env: { PATH: "${bin}" }
    commands:
      - { id: run, argv: [tool], plan_inputs: [Makefile, GNUmakefile] }
`,
      dir,
    );
    const { plan, program: resolved } = previewPackCall(ws, 'p.run', {});
    const sha = (file: string) =>
      execFileSync('sha256sum', [file], { encoding: 'utf8' }).split(' ')[0] as string;
    expect(plan).toMatchObject({
      executable: program,
      executableSha256: sha(program),
      cwd: dir,
      cwdReal: execFileSync('realpath', [dir], { encoding: 'utf8' }).trim(),
      inputs: [
        { path: 'Makefile', sha256: sha(join(dir, 'Makefile')) },
        { path: 'GNUmakefile', sha256: 'absent' },
      ],
    });
    expect(resolved?.file).toBe(program);
    expect(readFileSync(program, 'utf8')).toContain('one');
  });
});

/**
 * A process that renames `dir/tool` away and back as fast as it can until `stop` exists (60 s at
 * most): a program toggled in an earlier PATH directory. Resolves once it has started toggling.
 */
async function toggler(dir: string, stop: string): Promise<ChildProcess> {
  const source = `const fs = require('node:fs');
const [a, b, stop] = process.argv.slice(1);
const end = Date.now() + 60000;
fs.renameSync(a, b); fs.renameSync(b, a);
process.stdout.write('toggling\\n');
while (!fs.existsSync(stop) && Date.now() < end) { fs.renameSync(a, b); fs.renameSync(b, a); }`;
  const child = spawn(process.execPath, ['-e', source, join(dir, 'tool'), join(dir, 'off'), stop], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await once(child.stdout!, 'data');
  return child;
}

describe('the program a plan resolved is the program that starts', () => {
  it('runs no other program than the plan hashed in 100 calls while an earlier PATH directory toggles one, where resolving again at spawn does [SEC-25]', async () => {
    const dir = scratch();
    const early = join(dir, 'early');
    const late = join(dir, 'late');
    tool(early, 'early');
    tool(late, 'late');
    const ws = await load(
      `sandbox_mode: off
command_packs:
  - id: p
    env: { PATH: "${early}:${late}" }
    commands:
      - { id: tool, argv: [tool] }
`,
      dir,
    );
    const stop = join(dir, 'stop');
    const child = await toggler(early, stop);
    /** One call: its plan, then its run (given the plan's program, or resolving again). */
    const call = async (resolveOnce: boolean): Promise<'ran' | 'wrong' | 'refused'> => {
      const { plan, program } = previewPackCall(ws, 'p.tool', {});
      const planned = plan?.executable?.startsWith(early) ? 'early' : 'late';
      const r = await runPackCommand(ws, 'p.tool', {}, resolveOnce ? { program } : {});
      // Refused before the spawn, or started but its script was renamed away before the shell
      // opened it (no output): nothing ran in the name of another program.
      const said = r.ok ? r.outcome.stdout.trim() : '';
      return said === '' ? 'refused' : said === planned ? 'ran' : 'wrong';
    };
    try {
      const once = { ran: 0, wrong: 0, refused: 0 };
      for (let i = 0; i < 100; i++) once[await call(true)] += 1;
      // Before: the plan and the spawn each searched PATH, and between them the toggle moved. It
      // takes a few dozen tries here, so this side tries until it sees one, 2 000 at most.
      let tries = 0;
      while (tries < 2000 && (await call(false)) !== 'wrong') tries += 1;
      if (process.env.SHOW_RACE) console.log(JSON.stringify({ once, firstWrongAfter: tries + 1 }));
      expect(once.wrong).toBe(0);
      expect(once.ran).toBeGreaterThan(0);
      expect(tries).toBeLessThan(2000);
    } finally {
      writeFileSync(stop, '');
      if (child.exitCode === null) await once(child, 'exit');
    }
  }, 60_000);
});

needs('git').describe('git pathspecs are literal', () => {
  function repo(): string {
    const dir = scratch();
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_CONFIG_GLOBAL: '/dev/null', HOME: dir },
      });
    git('init', '-q', '-b', 'main');
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'a.txt'), 'a\n');
    writeFileSync(join(dir, 'src', 'b.txt'), 'b\n');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'one');
    writeFileSync(join(dir, 'a.txt'), 'a changed\n');
    writeFileSync(join(dir, 'src', 'b.txt'), 'b changed\n');
    return dir;
  }

  it('git.restore of ":/" discards nothing, where git without GIT_LITERAL_PATHSPECS discards every change [SEC-25]', async () => {
    const dir = repo();
    const ws = await load(`sandbox_mode: off\ncommand_packs:\n  - { standard: git, cwd: . }\n`, dir);
    expect(ws.packs[0]?.env.GIT_LITERAL_PATHSPECS).toBe('1');
    const r = await runPackCommand(ws, 'git.restore', { path: ':/' });
    expect(r.ok && r.outcome.status).toBe('exit_nonzero');
    expect(r.ok && r.outcome.stderr).toContain("pathspec ':/' did not match");
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('a changed\n');
    expect(readFileSync(join(dir, 'src', 'b.txt'), 'utf8')).toBe('b changed\n');

    // The same argv without the variable: ":/" is the whole tree, and every change is gone.
    const other = repo();
    execFileSync('git', ['restore', '--worktree', '--', ':/'], {
      cwd: join(other, 'src'),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_CONFIG_GLOBAL: '/dev/null', HOME: other },
    });
    expect(readFileSync(join(other, 'a.txt'), 'utf8')).toBe('a\n');
    expect(readFileSync(join(other, 'src', 'b.txt'), 'utf8')).toBe('b\n');
  });
});
