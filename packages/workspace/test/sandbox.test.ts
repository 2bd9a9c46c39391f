// The `sandbox` block and `sandbox_mode`: policies resolved at load, load errors, the mode against
// a machine without bubblewrap (a PATH without bwrap), and confined runs of real commands.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectSandbox } from '@harness/exec';
import { formatIssue, PacksErrorCode, runPackCommand } from '@harness/packs';
import { needs, sandboxMechanism } from '@harness/test-utils';
import { describe, expect, it } from 'vitest';
import { auditEvent, loadWorkspace, type Workspace } from '../src/index';
import { loadErrors, loadOk, workDir } from './helpers';

const home = join(workDir, 'home');
mkdirSync(join(home, '.ssh'), { recursive: true });
mkdirSync(join(home, 'proj', 'out'), { recursive: true });
writeFileSync(join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY\n');
writeFileSync(join(home, 'proj', 'readme.txt'), 'hello\n');

const mechanism = needs(sandboxMechanism(detectSandbox()));
const sandboxed = mechanism.runs;
const withMechanism = mechanism.it;

const command = (ws: Workspace, id: string) =>
  ws.packs.flatMap((p) => p.commands).find((c) => c.manifestId === id)!;

const packs = `command_packs:
  - id: p
    cwd: ${JSON.stringify(join(home, 'proj'))}
    sandbox:
      filesystem:
        read: ["~/proj"]
        deny: [secret]
      processes: 32
    commands:
      - { id: cat, argv: [cat, "{{file}}"], effects: read }
      - id: build
        argv: [sh, -c, 'echo built > out/result.txt; echo escaped > "$0"', "{{path}}"]
        effects: write
        sandbox:
          filesystem: { write: [out] }
          network: host
  - id: q
    commands:
      - { id: look, argv: [cat, "{{file}}"], effects: read }
      - { id: change, argv: [touch, "{{file}}"], effects: write }
      - { id: free, argv: [cat, "{{file}}"], effects: read, sandbox: false }
`;

describe('sandbox policies resolved at load', () => {
  withMechanism(
    'resolves ~ to the serving user’s home, relative paths against the pack’s cwd, and keeps of the built-in deny list what the command could see [SEC-14] [SEC-21]',
    async () => {
      const ws = await loadOk(packs, { home });
      const cat = command(ws, 'p.cat');
      expect(cat.sandbox).toMatchObject({
        read: [join(home, 'proj')],
        write: [],
        network: 'none',
        processes: 32,
      });
      // ~/.ssh and ~/.aws are outside its read list: nothing to hide, no mount to pay for.
      expect(cat.sandbox?.deny).toEqual([join(home, 'proj', 'secret')]);
      const wide = await loadOk(packs.replace('read: ["~/proj"]', 'read: ["~"]'), { home });
      expect(command(wide, 'p.cat').sandbox?.deny).toEqual(
        expect.arrayContaining([join(home, 'proj', 'secret'), join(home, '.ssh'), join(home, '.aws')]),
      );
    },
  );

  withMechanism(
    'lets a command override its pack’s block field by field; a write command defaults to writing nowhere else [SEC-14]',
    async () => {
      const ws = await loadOk(packs, { home });
      expect(command(ws, 'p.build').sandbox).toMatchObject({
        read: [join(home, 'proj')],
        write: [join(home, 'proj', 'out')],
        network: 'host',
        processes: 32,
      });
    },
  );

  withMechanism(
    'confines a read command of a pack without a block (read-only, no network), not a write command, not sandbox: false [SEC-14]',
    async () => {
      const ws = await loadOk(packs, { home });
      expect(command(ws, 'q.look').sandbox).toMatchObject({ read: 'all', write: [], network: 'none' });
      expect(command(ws, 'q.change').sandbox).toBeNull();
      expect(command(ws, 'q.free').sandbox).toBeNull();
    },
  );

  it('refuses a write path outside the read paths, another user’s home, and a domain allowlist, naming each [SEC-14]', async () => {
    const errors = await loadErrors(
      `command_packs:
  - id: p
    cwd: /srv/p
    sandbox:
      filesystem: { read: [/srv/p], write: [/var/out, "~bob/x"] }
      network: { allow: [api.github.com] }
    commands:
      - { id: c, argv: [x], effects: write }
`,
      { home },
    );
    expect(errors).toMatchInlineSnapshot(`
      [
        "workspace.yaml:5:45: sandbox write path /var/out of "p.c" is outside its read paths /srv/p; add it (or a parent) to filesystem.read",
        "workspace.yaml:5:55: sandbox path "~bob/x" of "p.c" names another user's home; expected an absolute path, ~/… (the serving user's home) or a path relative to the pack's cwd",
        "workspace.yaml:6:16: sandbox network { allow: [...] } of "p.c" is not supported yet (a domain allowlist needs a filtering proxy inside the sandbox); use none, loopback or host",
      ]
    `);
  });
});

describe('sandbox_mode where no mechanism works (a PATH without bwrap)', () => {
  const noBwrap = { home, sandboxPath: '/nonexistent-bin' };

  it('required: a pack that needs a sandbox is unavailable, with what to install; the others stay [SEC-14]', async () => {
    const r = await loadWorkspace(
      { text: `sandbox_mode: required\n${packs}`, file: 'workspace.yaml' },
      { probe: false, ...noBwrap },
    );
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    expect(r.workspace.packs.map((p) => p.id)).toEqual([]);
    expect(r.workspace.unavailable.map((u) => u.id)).toEqual(['p', 'q']);
    expect(r.warnings.map(formatIssue)[0]).toBe(
      'workspace.yaml:3:9: pack "p" left out: sandbox_mode is required and bubblewrap (bwrap) was not found on PATH (/nonexistent-bin); its commands p.cat, p.build are not offered; to fix: install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap)',
    );
    expect(r.workspace.sandbox).toMatchObject({ mode: 'required', mechanism: null });
  });

  it('preferred (the default): runs unconfined, with one warning naming what to install [SEC-14]', async () => {
    const r = await loadWorkspace({ text: packs, file: 'workspace.yaml' }, { probe: false, ...noBwrap });
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    expect(r.workspace.packs.map((p) => p.id)).toEqual(['p', 'q']);
    const sandboxWarnings = r.warnings.filter((w) => w.code !== PacksErrorCode.argv_safety);
    expect(sandboxWarnings.map(formatIssue)).toEqual([
      'workspace.yaml:1:1: sandbox_mode preferred: bubblewrap (bwrap) was not found on PATH (/nonexistent-bin), so the commands of packs p, q run unconfined; to confine them: install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap)',
    ]);
    expect(r.workspace.packs.flatMap((p) => p.commands).every((c) => c.sandbox === null)).toBe(true);
    expect(r.workspace.sandbox.unavailable?.hint).toContain('apt-get install bubblewrap');
  });

  it('off: never confines and never looks for a mechanism [SEC-14]', async () => {
    const r = await loadWorkspace(
      { text: `sandbox_mode: off\n${packs}`, file: 'workspace.yaml' },
      { probe: false, ...noBwrap },
    );
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    expect(r.warnings.filter((w) => w.code !== PacksErrorCode.argv_safety)).toEqual([]);
    expect(r.workspace.sandbox).toEqual({ mode: 'off', mechanism: null });
    expect(command(r.workspace, 'p.cat').sandbox).toBeNull();
  });
});

describe('confined pack commands', () => {
  withMechanism(
    'a read command reads its read paths but not a denied file, and says how it was confined [SEC-14]',
    async () => {
      const ws = await loadOk(packs, { home });
      const ok = await runPackCommand(ws, 'p.cat', { file: 'readme.txt' });
      if (!ok.ok) throw new Error(ok.issues.map((i) => i.message).join('; '));
      expect(ok.outcome.stdout).toBe('hello\n');
      expect(ok.outcome.confinement).toMatchObject({ confined: true, mechanism: 'bwrap', network: 'none' });
      const denied = await runPackCommand(ws, 'p.cat', { file: join(home, '.ssh', 'id_ed25519') });
      if (!denied.ok) throw new Error(denied.issues.map((i) => i.message).join('; '));
      expect(denied.outcome.stdout).toBe('');
      expect(denied.outcome.status).toBe('exit_nonzero');
    },
  );

  withMechanism(
    'a write command writes its write path and nothing else, its own cwd included [SEC-14]',
    async () => {
      const ws = await loadOk(packs, { home });
      const escapee = join(home, 'proj', 'escaped.txt');
      const r = await runPackCommand(ws, 'p.build', { path: escapee });
      if (!r.ok) throw new Error(r.issues.map((i) => i.message).join('; '));
      expect(readFileSync(join(home, 'proj', 'out', 'result.txt'), 'utf8')).toBe('built\n');
      expect(existsSync(escapee)).toBe(false);
      expect(r.outcome.stderr).toContain('Read-only file system');
    },
  );
});

describe('the audit record says whether and how a run was confined', () => {
  withMechanism('a confined run records its mechanism, paths and network [SEC-14]', async () => {
    const ws = await loadOk(packs, { home });
    const r = await runPackCommand(ws, 'p.cat', { file: 'readme.txt' });
    if (!r.ok) throw new Error(r.issues.map((i) => i.message).join('; '));
    expect(auditEvent(ws, 'p.cat', { outcome: r.outcome })?.payload.run?.confinement).toMatchObject({
      confined: true,
      mechanism: 'bwrap',
      read: [join(home, 'proj')],
      write: [],
      network: 'none',
      processes: { max: 32 },
      pidNamespace: true,
    });
  });

  it('an unconfined run records why: its block, sandbox_mode off, or no mechanism under preferred [SEC-14]', async () => {
    const why = async (text: string, options: Parameters<typeof loadOk>[1], id: string) => {
      const ws = await loadOk(text, { home, ...options });
      const r = await runPackCommand(ws, id, { file: join(home, 'proj', 'readme.txt') });
      if (!r.ok) throw new Error(r.issues.map((i) => i.message).join('; '));
      expect(r.outcome.stdout).toBe('hello\n');
      return auditEvent(ws, id, { outcome: r.outcome })?.payload.run?.confinement;
    };
    // Where no mechanism works every command is unconfined for that reason, whatever its block says.
    if (sandboxed) {
      expect(await why(packs, {}, 'q.free')).toEqual({
        confined: false,
        reason: 'its pack or command says sandbox: false',
      });
    }
    expect(await why(`sandbox_mode: off\n${packs}`, {}, 'q.look')).toEqual({
      confined: false,
      reason: 'sandbox_mode is off',
    });
    expect(await why(packs, { sandboxPath: '/nonexistent-bin' }, 'q.look')).toEqual({
      confined: false,
      reason:
        'sandbox_mode preferred and no mechanism works: bubblewrap (bwrap) was not found on PATH (/nonexistent-bin)',
    });
  });
});
