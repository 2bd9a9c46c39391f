// The two walls against the code a confined command runs: the home by allow-list (nothing of the
// person's home but what the run needs) and protected paths inside the write paths (what the person
// later trusts unconfined stays read-only, and cannot be created). Real bubblewrap, real files; every
// "cannot" has its "can" beside it.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { needs, sandboxMechanism, until } from '@harness/test-utils';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { detectSandbox, ExecErrorCode, run, type SandboxPolicy } from '../src/index';
import { env } from './helpers';

const suite = needs(sandboxMechanism(detectSandbox())).describe;

// Outside /tmp: the run's /tmp is private, which would hide these for the wrong reason.
const root = mkdtempSync('/var/tmp/exec-home-');
const home = join(root, 'home');
const project = join(home, 'src', 'project');
const cache = join(home, '.cache', 'tool');
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeAll(() => {
  mkdirSync(join(project, '.git', 'hooks'), { recursive: true });
  mkdirSync(join(project, '.harness'), { recursive: true });
  mkdirSync(join(home, 'other', 'app'), { recursive: true });
  mkdirSync(cache, { recursive: true });
  writeFileSync(join(home, '.bash_history'), 'export TOKEN=secret-history\n');
  writeFileSync(join(home, '.claude.json'), '{"mcpServers":{"gh":{"env":{"TOKEN":"secret-claude"}}}}\n');
  writeFileSync(join(home, 'other', 'app', '.env'), 'API_KEY=secret-other-env\n');
  writeFileSync(join(cache, 'entry'), 'cached\n');
  writeFileSync(join(project, 'README'), 'project readme\n');
  writeFileSync(join(project, '.git', 'config'), '[core]\n\trepositoryformatversion = 0\n');
  writeFileSync(join(project, '.harness', 'workspace.yaml'), 'version: 1\n');
});

const sh = (script: string, sandbox: SandboxPolicy) =>
  run({ argv: ['sh', '-c', script], env, cwd: project, sandbox, timeoutMs: 10_000 });

const secrets = ['.bash_history', '.claude.json', 'other/app/.env'].map((f) => join(home, f));
const catAll = `for f in ${secrets.map((f) => `'${f}'`).join(' ')}; do cat "$f" 2>/dev/null; done; echo end`;

suite('sandbox: the home by allow-list', () => {
  it('reads the project and the visible toolchain paths of the home, and no other file of it [SEC-21]', async () => {
    const policy: SandboxPolicy = { home: { dir: home, visible: [project, cache] } };
    const r = await sh(`cat README '${join(cache, 'entry')}'; ${catAll}; ls -A '${home}'`, policy);
    expect(r.stdout).toBe('project readme\ncached\nend\n.cache\nsrc\n');
    // Without the allow-list (the deny list alone), every one of them comes back.
    const before = await sh(catAll, {});
    for (const secret of ['secret-history', 'secret-claude', 'secret-other-env']) {
      expect(before.stdout).toContain(secret);
    }
  });

  it('writes a write path under the home, and what it writes elsewhere in the home vanishes with the run [SEC-21]', async () => {
    const policy: SandboxPolicy = { home: { dir: home, visible: [project] }, write: [cache] };
    const r = await sh(
      `echo new > '${join(cache, 'new')}' && echo planted > '${join(home, '.bashrc')}' && echo ok`,
      policy,
    );
    expect(r.stdout).toBe('ok\n');
    expect(readFileSync(join(cache, 'new'), 'utf8')).toBe('new\n');
    expect(existsSync(join(home, '.bashrc'))).toBe(false);
  });

  it('refuses a working directory in the home that no visible path covers, and spawns nothing [SEC-21]', async () => {
    await expect(sh('true', { home: { dir: home, visible: [cache] } })).rejects.toMatchObject({
      code: ExecErrorCode.invalid_sandbox,
      message: expect.stringContaining('add it (or a parent) to sandbox home.visible'),
    });
  });
});

suite('sandbox: protected paths inside a write path', () => {
  const protect = ['.git/', '.harness/', '.mcp.json', '.vscode/', '.envrc'].map((p) => join(project, p));
  const plant =
    "echo '[core] fsmonitor = evil' >> .git/config; echo evil > .git/hooks/pre-commit; " +
    "echo 'version: 1 # open sh' > .harness/workspace.yaml; echo '{\"mcpServers\":{}}' > .mcp.json; " +
    "mkdir -p .vscode && echo '{}' > .vscode/mcp.json; echo 'eval evil' > .envrc; echo built > out.txt; echo done";

  it('keeps .git, .harness and client configs read-only, and cannot create the missing ones [SEC-22]', async () => {
    const r = await sh(plant, { home: { dir: home, visible: [project] }, write: [project], protect });
    expect(r.stdout).toBe('done\n');
    expect(r.stderr).toMatch(/Read-only file system/);
    expect(readFileSync(join(project, 'out.txt'), 'utf8')).toBe('built\n');
    expect(readFileSync(join(project, '.git', 'config'), 'utf8')).not.toContain('evil');
    expect(existsSync(join(project, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(readFileSync(join(project, '.harness', 'workspace.yaml'), 'utf8')).toBe('version: 1\n');
    // The placeholders that held the missing ones are gone with the run.
    for (const missing of ['.mcp.json', '.vscode', '.envrc'])
      expect(existsSync(join(project, missing))).toBe(false);
  });

  it('without the protected paths, the same script plants every one of them [SEC-22]', async () => {
    const r = await sh(plant, { home: { dir: home, visible: [project] }, write: [project] });
    expect(r.stdout).toBe('done\n');
    expect(readFileSync(join(project, '.git', 'config'), 'utf8')).toContain('evil');
    for (const planted of ['.git/hooks/pre-commit', '.mcp.json', '.vscode/mcp.json', '.envrc']) {
      expect(existsSync(join(project, planted))).toBe(true);
    }
    // Put the project back for the other tests.
    writeFileSync(join(project, '.git', 'config'), '[core]\n\trepositoryformatversion = 0\n');
    writeFileSync(join(project, '.harness', 'workspace.yaml'), 'version: 1\n');
    for (const planted of ['.git/hooks/pre-commit', '.mcp.json', '.vscode', '.envrc']) {
      rmSync(join(project, planted), { recursive: true, force: true });
    }
  });

  it('keeps a placeholder while another run still holds it, and removes it after the last [SEC-22]', async () => {
    const policy: SandboxPolicy = { home: { dir: home, visible: [project] }, write: [project], protect };
    const started = join(project, 'first-started');
    const ended = join(project, 'second-ended');
    // The first run waits (inside its sandbox) until the second has ended and let go of .mcp.json;
    // had the second removed the placeholder, the first's mount over it would be gone too.
    const first = run({
      argv: [
        'sh',
        '-c',
        `echo > first-started; while [ ! -e second-ended ]; do sleep 0.02; done; echo x > .mcp.json; echo first`,
      ],
      env,
      cwd: project,
      sandbox: policy,
      timeoutMs: 20_000,
    });
    await until(() => existsSync(started), 'the first run to start');
    const second = await sh('echo x > .mcp.json; echo second', policy);
    writeFileSync(ended, '');
    const done = await first;
    expect(second.stdout).toBe('second\n');
    expect(done.stdout).toBe('first\n');
    expect(done.stderr).toMatch(/cannot create .mcp.json: (Read-only file system|Permission denied)/);
    expect(existsSync(join(project, '.mcp.json'))).toBe(false);
    rmSync(started, { force: true });
    rmSync(ended, { force: true });
  });
});
