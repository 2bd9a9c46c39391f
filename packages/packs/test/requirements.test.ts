import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssue, loadPacks, PROBE_TIMEOUT_MS } from '../src/index';
import { satisfies } from '../src/probe';
import { workDir } from './helpers';

// Fake binaries in a private bin dir: each prints a version, and `recorder` writes its argv and env.
const bin = join(workDir, 'bin');
mkdirSync(bin, { recursive: true });
function fake(name: string, body: string): void {
  writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
  chmodSync(join(bin, name), 0o755);
}
fake('tool-old', 'echo "tool-old version 1.4.2"');
fake('tool-new', 'echo "tool-new 2.0"');
fake('tool-noversion', 'echo "no digits here"');
fake(
  'recorder',
  `echo "$@" > "${join(workDir, 'recorder.args')}"; env > "${join(workDir, 'recorder.env')}"; echo 3.1.4`,
);
const PATH = `${bin}:/usr/bin:/bin`;

function pack(requires: string, extra = ''): string {
  return `command_packs:\n  - id: p\n${extra}    requires: [${requires}]\n    commands:\n      - { id: a, argv: ['true'], effects: read }\n`;
}
async function load(text: string) {
  return loadPacks({ text, file: 'workspace.yaml' }, { path: PATH });
}
async function errors(text: string): Promise<string[]> {
  const r = await load(text);
  if (r.ok) throw new Error('expected the load to fail');
  return r.issues.map(formatIssue);
}

describe('requirements', () => {
  it('a missing binary fails workspace load, naming the binary and the pack [CP-51, CP-52, CP-81]', async () => {
    expect(await errors(pack('{ binary: no-such-binary-xyz }'))).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:16: pack "p" is unavailable because no-such-binary-xyz is not on PATH; install no-such-binary-xyz, or mark the pack optional: true",
      ]
    `);
  });

  it('an installed version below the constraint fails the same way, naming both [CP-53]', async () => {
    expect(await errors(pack(`{ binary: tool-old, version: '>=1.7' }`))).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:16: pack "p" is unavailable because it requires tool-old: tool-old 1.4.2 is installed but >=1.7 is required; install a version that satisfies the constraint, or mark the pack optional: true",
      ]
    `);
  });

  it('a version that satisfies the constraint loads [CP-54]', async () => {
    const r = await load(
      pack(`{ binary: tool-old, version: '>=1.4' }, { binary: tool-new, version: '>=1.7, <3' }`),
    );
    expect(r.ok).toBe(true);
  });

  it('a version that cannot be read fails a constrained requirement; with no constraint presence is enough', async () => {
    expect(await errors(pack(`{ binary: tool-noversion, version: '>=1' }`))).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:16: pack "p" is unavailable because it requires tool-noversion: tool-noversion --version printed no version number, so >=1 cannot be checked; install a version that satisfies the constraint, or mark the pack optional: true",
      ]
    `);
    expect((await load(pack('{ binary: tool-noversion }'))).ok).toBe(true);
  });

  it('the probe runs <binary> --version with only PATH in its env, with a 10 s timeout [CP-55]', async () => {
    expect(PROBE_TIMEOUT_MS).toBe(10_000);
    expect((await load(pack('{ binary: recorder }'))).ok).toBe(true);
    expect(readFileSync(join(workDir, 'recorder.args'), 'utf8')).toBe('--version\n');
    const env = readFileSync(join(workDir, 'recorder.env'), 'utf8')
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('PWD=') && !l.startsWith('SHLVL=') && !l.startsWith('_='));
    expect(env).toEqual([`PATH=${PATH}`]);
  });

  it.each([
    ['1.7.1', '>=1.7', true],
    ['1.6.0', '>=1.7', false],
    ['1.7.0', '<=1.7', true],
    ['1.7.1', '<=1.7', false],
    ['1.7.0', '==1.7', true],
    ['1.7.1', '==1.7', false],
    ['2.0.0', '>1.9.9', true],
    ['1.9.9', '>1.9.9', false],
    ['1.9.9', '<2', true],
    ['2.0.0', '<2', false],
    ['1.8.0', '>=1.7, <2', true],
  ] as const)('%s satisfies %s → %s [CP-56]', (version, constraint, want) => {
    expect(satisfies(version, constraint)).toBe(want);
  });

  it('any other operator is a schema error at load [CP-56]', async () => {
    expect(await errors(pack(`{ binary: jq, version: '~1.7' }`))).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:39: command_packs[0].requires[0].version: expected a version constraint such as >=1.7 (operators >= <= == > <), found "~1.7"; e.g. version: ">=1.7"",
      ]
    `);
  });

  it('an optional pack whose requirement fails is left out with a warning naming the binary', async () => {
    const r = await load(pack(`{ binary: tool-old, version: '>=9' }`, '    optional: true\n'));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.packs.packs).toEqual([]);
    expect(r.packs.unavailable).toMatchObject([{ id: 'p', binary: 'tool-old', commands: ['p.a'] }]);
    expect(r.warnings.map(formatIssue)).toMatchInlineSnapshot(`
      [
        "workspace.yaml:4:16: optional pack "p" left out: tool-old 1.4.2 is installed but >=9 is required; its commands p.a are not offered",
      ]
    `);
  });

  it('probe: false skips probing (requirements are a load-time check, never a run-time one) [CP-51]', async () => {
    const r = await loadPacks(
      { text: pack('{ binary: no-such-binary-xyz }'), file: 'workspace.yaml' },
      { probe: false },
    );
    expect(r.ok).toBe(true);
  });
});
