// harness doctor: one line per check and a verdict, against real instances, sockets and configs.
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectSandbox } from '@harness/exec';
import { auditKeyRecordFile } from '@harness/store';
import { needs, sandboxMechanism } from '@harness/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { connectStdio, runCli, sandbox, slowWorkspace } from './helpers';

const box = sandbox();
afterAll(() => box.cleanup());
const run = (args: string[]) => runCli(['doctor', ...args], { home: box.home });

describe('harness doctor', () => {
  it('is healthy on a fresh machine, warning that no instance or broker exists yet', async () => {
    const r = await run(['--instance', join(box.root, 'fresh')]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.at(-1)).toBe('verdict: healthy');
    expect(lines).toContainEqual(expect.stringMatching(/^ok {3}node {3,}Node\.js \d+/));
    expect(lines).toContainEqual(expect.stringMatching(/^ok {3}loom {3,}.*loom\.js \(@harness\/loom /));
    expect(lines).toContainEqual(expect.stringMatching(/^warn broker {3,}no socket at /));
    expect(lines).toContainEqual(
      expect.stringMatching(/^warn instance {3,}no instance at .* \(serve creates it\)$/),
    );
  });

  it('checks a running broker: reachable, socket mode 600, store opens, and shows the store size', async () => {
    const instance = join(box.root, 'live');
    const conn = await connectStdio(['--instance', instance], box.home);
    try {
      const r = await run(['--instance', instance, '--json']);
      expect(r.code).toBe(0);
      const checks = JSON.parse(r.stdout).checks as { name: string; status: string; detail: string }[];
      const by = Object.fromEntries(checks.map((c) => [c.name, c]));
      expect(by['socket permissions']).toMatchObject({ status: 'ok' });
      expect(by['socket permissions']?.detail).toMatch(/mode 600$/);
      expect(by.broker?.status).toBe('ok');
      expect(by.store?.status).toBe('ok');
      expect(by['store size']?.detail).toMatch(
        /^\d+\.\d MiB \(database \d+\.\d MiB, write-ahead log \d+\.\d MiB\); prune old audit events with 'loom audit prune --before 30d --instance /,
      );
      // The instance's key, made with it: its public key as loom audit verify --public-key takes it.
      const keyFile = join(instance, 'audit-key.pem');
      const { x } = createPublicKey(createPrivateKey(readFileSync(keyFile))).export({ format: 'jwk' });
      expect(by['audit key']).toEqual({
        name: 'audit key',
        status: 'ok',
        detail: `public key ed25519:${x} (${keyFile} mode 600)`,
      });
    } finally {
      await conn.close();
    }
  });

  it('fails with a clear verdict and exit 1 on a broken configuration', async () => {
    const cfg = join(box.root, 'bad.json');
    writeFileSync(
      cfg,
      JSON.stringify({
        cliPath: '/nonexistent/loom',
        transport: { kind: 'broker', socketPath: '/tmp/nope.sock' },
      }),
    );
    const r = await run(['--loom-commands-config', cfg]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^FAIL commands config cliPath +\/nonexistent\/loom is missing or not executable$/m,
    );
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^verdict: \d+ check\(s\) failed$/);
  });

  it('fails the workspace of the instance itself, as the embedded host of serve then cannot start on it', async () => {
    const instance = join(box.root, 'broken-ws');
    const ws = join(box.root, 'broken.yaml');
    writeFileSync(ws, readFileSync(slowWorkspace, 'utf8'));
    const created = await runCli(['call', 'list_commands', '--instance', instance, '--workspace', ws], {
      home: box.home,
    });
    expect(created.code, created.stderr).toBe(0);
    writeFileSync(ws, 'version: 1\ncommand_packs: nope\n');
    const r = await run(['--instance', instance]);
    expect(r.stdout).toMatch(new RegExp(`^FAIL workspace {2,}the workspace ${ws} does not load:`, 'm'));
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^verdict: 1 check\(s\) failed$/);
    expect(r.code).toBe(1);
    const serve = await runCli(['call', 'list_commands', '--instance', instance], { home: box.home });
    expect(serve.code).toBe(3);
    expect(serve.stderr).toContain(`the workspace ${ws} does not load`);
  });

  it('fails a credentials file others can read, as the embedded host of serve then cannot start on it', async () => {
    const instance = join(box.root, 'creds');
    const created = await runCli(['call', 'list_commands', '--instance', instance], { home: box.home });
    expect(created.code, created.stderr).toBe(0);
    const file = join(instance, 'credentials.json');
    writeFileSync(file, '{"TOKEN":"s3cret-value"}', { mode: 0o644 });
    chmodSync(file, 0o644);
    const r = await run(['--instance', instance]);
    expect(r.stdout).toContain(`FAIL credentials`);
    expect(r.stdout).toContain(`${file} has mode 0644`);
    expect(r.stdout).toContain(`chmod 600 ${file}`);
    expect(r.stdout).not.toContain('s3cret-value');
    expect(r.stdout).not.toContain('verdict: healthy');
    const serve = await runCli(['call', 'list_commands', '--instance', instance], { home: box.home });
    expect(serve.code).toBe(3);
    expect(serve.stderr).toContain(`${file} has mode 0644`);
    chmodSync(file, 0o600);
    const fixed = await run(['--instance', instance]);
    expect(fixed.stdout).toMatch(/^ok {3}credentials {3,}credentials\.json readable by its owner only$/m);
    expect(fixed.stdout.trim().split('\n').at(-1)).toBe('verdict: healthy');
  });

  it('prints the audit key as recorded outside the instance, and fails when the instance key was replaced [SEC-26]', async () => {
    const instance = join(box.root, 'recorded');
    const created = await runCli(['call', 'list_commands', '--instance', instance], { home: box.home });
    expect(created.code, created.stderr).toBe(0);
    const keyFile = join(instance, 'audit-key.pem');
    const keyOf = () =>
      `ed25519:${(createPublicKey(createPrivateKey(readFileSync(keyFile))).export({ format: 'jwk' }) as { x: string }).x}`;
    const record = auditKeyRecordFile(instance, { HOME: box.home });
    expect(record.startsWith(join(box.home, '.config', 'harness', 'audit-keys'))).toBe(true);
    const original = keyOf();
    const healthy = await run(['--instance', instance]);
    expect(healthy.stdout).toContain(
      `\nok   audit key record           ${original}, recorded in ${record}\n`,
    );
    // A same-user process writes a key of its own into the instance.
    writeFileSync(
      keyFile,
      generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }),
      { mode: 0o600 },
    );
    const replaced = await run(['--instance', instance]);
    expect(replaced.code).toBe(1);
    expect(replaced.stdout).toContain(
      `\nFAIL audit key record           ${record} records ${original}, not the instance's key ${keyOf()}: the instance's key was replaced; check the record with loom audit verify --instance ${instance}\n`,
    );
    // Without the record, the replaced key reads as the instance's own: only a warning says so.
    rmSync(record);
    const unrecorded = await run(['--instance', instance]);
    expect(unrecorded.stdout).toMatch(new RegExp(`\\nok   audit key {3,}public key ${keyOf()} \\(`));
    expect(unrecorded.stdout).toContain(
      `\nwarn audit key record           not recorded outside the instance (${record}): loom audit verify can only check the instance's own key; record it once you trust it: loom audit verify --record --instance ${instance}\n`,
    );
  });

  it('checks the agent the instance serves and names it', async () => {
    const instance = join(box.root, 'reader');
    const created = await runCli(['call', 'list_commands', '--instance', instance, '--agent', 'reader'], {
      home: box.home,
    });
    expect(created.code, created.stderr).toBe(0);
    const r = await run(['--instance', instance]);
    expect(r.stdout).toMatch(/^ok {3}configuration .*serves agent "reader" of \/\S+\/workspace\.yaml\)$/m);
    expect(r.stdout).toMatch(/^ok {3}scope {3,}agent reader, \d+ command\(s\)$/m);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('verdict: healthy');
  });
});

needs('git').describe('harness doctor: the git identity', () => {
  it("shows the name and email of the person's global git configuration that the git pack commits as", async () => {
    const home = join(box.root, 'identity-home');
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n');
    const r = await runCli(['doctor', '--instance', join(box.root, 'identity')], { home });
    expect(r.stdout).toMatch(
      /^ok {3}git identity +Ada Lovelace <ada@example\.com> \(user\.name, user\.email of your global git configuration\)/m,
    );
  });

  it('warns when no identity is set, saying how to set it', async () => {
    const home = join(box.root, 'no-identity-home');
    mkdirSync(home, { recursive: true });
    const r = await runCli(['doctor', '--instance', join(box.root, 'no-identity')], { home });
    expect(r.stdout).toContain(
      'user.name and user.email are not set in your global git configuration (~/.gitconfig or ~/.config/git/config), so git.commit has no identity of yours and fails with "Author identity unknown"; set it with git config --global user.name "Your Name" and git config --global user.email you@example.com',
    );
    expect(r.stdout).toMatch(/^warn git identity +user\.name and user\.email are not set/m);
  });
});

describe('harness doctor: confinement', () => {
  const sandboxed = needs(sandboxMechanism(detectSandbox()));
  const noBwrap = { PATH: '/nonexistent-bin' };
  const required = join(box.root, 'required.yaml');
  writeFileSync(
    required,
    'version: 1\nsandbox_mode: required\ncommand_packs:\n  - id: t\n    commands:\n      - { id: c, argv: [cat, "{{file}}"], effects: read }\n',
  );

  sandboxed.it('names the mechanism it found and the sandbox_mode in force [SEC-14]', async () => {
    const r = await run(['--instance', join(box.root, 'sandbox-ok')]);
    expect(r.stdout).toMatch(
      /^ok {3}sandbox {3,}bubblewrap [\d.]+ \(\/\S+\/bwrap\): read commands and sandboxed packs run confined \(sandbox_mode preferred\)$/m,
    );
  });

  it('warns where bubblewrap is missing under preferred, and fails under required, naming what to install [SEC-14]', async () => {
    const preferred = await runCli(['doctor', '--instance', join(box.root, 'sandbox-missing')], {
      home: box.home,
      env: noBwrap,
    });
    expect(preferred.stdout).toMatch(
      /^warn sandbox {3,}bubblewrap \(bwrap\) was not found on PATH \(\/nonexistent-bin\): pack commands run unconfined \(sandbox_mode preferred\); install bubblewrap \(Debian\/Ubuntu: apt-get install bubblewrap;/m,
    );
    const strict = await runCli(
      ['doctor', '--instance', join(box.root, 'sandbox-required'), '--workspace', required],
      { home: box.home, env: noBwrap },
    );
    expect(strict.stdout).toMatch(
      /^FAIL sandbox {3,}bubblewrap \(bwrap\) was not found on PATH \(\/nonexistent-bin\): packs with confined commands are left out \(sandbox_mode required\); install bubblewrap/m,
    );
    expect(strict.code).toBe(1);
  });
});
