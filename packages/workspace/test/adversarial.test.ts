// Adversarial review of the pack runner and the gate: an agent that controls only argument values
// (and, through the programs it runs, their output) tries to inject flags, read the host's
// environment, or get a credential out past the redaction. Real processes throughout.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentialsFrom, formatIssue, type PackRunOutcome, runPackCommand } from '@harness/packs';
import { describe, expect, it } from 'vitest';
import { approvalKey, createMemoryApprovalStore, decide, type Workspace } from '../src/index';
import { loadOk, workDir } from './helpers';

const SECRET = 'tok-Ab12Cd34Ef56Gh78Ij90';
const ARGV = `[node, -e, 'process.stdout.write(JSON.stringify(process.argv.slice(1)))'`;

const ws: Workspace = await loadOk(`command_packs:
  - id: a
    timeout: 10s
    max_output: 1KB
    credentials_ref: [tok]
    env:
      TOK: '{{credential.tok}}'
      PLAIN: '\${HOME}:$USER:\${TOK}'
    commands:
      - { id: s, argv: ${ARGV}, '{{v}}'], effects: read, output: { parse: json } }
      - { id: prefixed, argv: [printf, '%s|', 'x{{v}}', 'y={{v}}'], effects: read }
      - { id: two, argv: ${ARGV}, '{{a?}}{{b}}'], effects: read, output: { parse: json } }
      - { id: after, argv: ${ARGV}, '--', '{{v}}'], effects: read, output: { parse: json } }
      - id: after-dash
        argv: ${ARGV}, '--', '{{v}}']
        inputs: { v: { type: string, allow_leading_dash: true } }
        effects: read
        output: { parse: json }
      - id: typed
        argv: ${ARGV}, '{{n}}', '{{x}}', '{{e}}']
        inputs:
          n: { type: integer }
          x: { type: number }
          e: { enum: ['-rf', ok] }
        effects: read
        output: { parse: json }
      - id: env
        argv: [node, -e, 'process.stdout.write(JSON.stringify(process.env))']
        effects: read
        output: { parse: json }
      # Writes n bytes of padding, the token, then m bytes: places the token where the agent wants.
      - id: place
        argv: [node, -e, 'const [n, m] = process.argv.slice(1).map(Number); process.stdout.write("A".repeat(n) + process.env.TOK + "B".repeat(m))', '{{n}}', '{{m}}']
        inputs: { n: { type: integer, minimum: 0 }, m: { type: integer, minimum: 0 } }
        effects: read
      - id: guess
        argv: [node, -e, 'const [n, g] = process.argv.slice(1); process.stdout.write("A".repeat(Number(n)) + g + "B".repeat(3000))', '{{n}}', 'g={{g}}']
        inputs: { n: { type: integer, minimum: 0 }, g: { type: string } }
        effects: read
      - id: json
        argv: [node, -e, 'process.stdout.write(JSON.stringify({ t: process.env.TOK.replace(/./g, (c) => "\\\\u" + c.charCodeAt(0).toString(16).padStart(4, "0")) }).replace(/\\\\\\\\/g, "\\\\"))']
        effects: read
        output: { parse: json }
      - id: split
        argv: [node, -e, 'const t = process.env.TOK; process.stdout.write(t.slice(0, 7)); setTimeout(() => process.stdout.write(t.slice(7) + "\\n"), 30)']
        effects: read
      - id: multi
        argv: [node, -e, 'process.stderr.write("k=" + process.env.TOK + "\\n"); process.exit(1)']
        effects: read
  - id: w
    permission: strict
    commands:
      - { id: say, argv: ${ARGV}, '--', '{{v}}'], effects: write }
agents:
  - id: ag
    grants: [pack:a, w.say]
  - id: other
    grants: [w.say]
`);
const credentials = credentialsFrom({ tok: SECRET });

async function ran(id: string, args: Record<string, unknown> = {}): Promise<PackRunOutcome> {
  const r = await runPackCommand(ws, id, args, { credentials, killGraceMs: 200 });
  if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
  return r.outcome;
}
async function refusedCode(id: string, args: Record<string, unknown>): Promise<string | undefined> {
  const r = await runPackCommand(ws, id, args, { credentials });
  return r.ok ? undefined : r.issues[0]?.code;
}
/** Every fragment of the secret of `n` characters or more found in `text`. */
const fragments = (text: string, n = 6): string[] => {
  const found: string[] = [];
  for (let i = 0; i + n <= SECRET.length; i++)
    if (text.includes(SECRET.slice(i, i + n))) found.push(SECRET.slice(i, i + n));
  return found;
};

describe('adversarial: flag injection through every input type', () => {
  it('a string, a negative integer, a negative number, an enum value or "--" cannot start an element', async () => {
    for (const v of ['-x', '--config=/etc/passwd', '--', '-', '-\n--x']) {
      expect(await refusedCode('a.s', { v }), v).toBe('render_refused');
    }
    expect(await refusedCode('a.typed', { n: -1, x: 1, e: 'ok' })).toBe('render_refused');
    expect(await refusedCode('a.typed', { n: 1, x: -0.5, e: 'ok' })).toBe('render_refused');
    expect(await refusedCode('a.typed', { n: 1, x: 1, e: '-rf' })).toBe('render_refused');
    // An empty optional before a value does not make the value the start of the element.
    expect(await refusedCode('a.two', { b: '-rf' })).toBe('render_refused');
    expect(await refusedCode('a.two', { a: '', b: '-rf' })).toBe('render_refused');
  });

  it('a value after a literal "--" that may not start with a dash is refused when it does [SEC-10] [D4]', async () => {
    for (const v of ['-delete', '--config=/etc/passwd', '-']) {
      expect(await refusedCode('a.after', { v }), v).toBe('render_refused');
    }
  });

  it('a value after a literal prefix or a literal "--" stays one element, newlines and all', async () => {
    expect((await ran('a.prefixed', { v: '-rf --all' })).output).toBe('x-rf --all|y=-rf --all|');
    expect((await ran('a.after', { v: 'x\n--y' })).output).toEqual(['x\n--y']);
    expect((await ran('a.after-dash', { v: '--config=x\n--y' })).output).toEqual(['--config=x\n--y']);
    expect((await ran('a.s', { v: 'a b;c$(id)`id`\n*' })).output).toEqual(['a b;c$(id)`id`\n*']);
  });

  it('numbers render in one spelling (1 and 1.0 are the same argv); NUL is refused before spawning', async () => {
    const one = await ran('a.typed', JSON.parse('{"n":1.0,"x":1e0,"e":"ok"}'));
    expect(one.output).toEqual(['1', '1', 'ok']);
    expect(await refusedCode('a.s', { v: 'a\u0000b' })).toBe('render_refused');
    expect(await refusedCode('a.typed', { n: 1.5, x: 1, e: 'ok' })).toBe('invalid_args');
    expect(await refusedCode('a.s', { v: 'x', extra: 1 })).toBe('invalid_args');
    expect(await refusedCode('a.s', JSON.parse('{"v":"x","__proto__":{"v":"-rf"}}'))).toBe('invalid_args');
  });
});

describe('adversarial: environment and credentials', () => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the test is about a literal ${VAR}
  it('the child sees only PATH, PWD and the pack env; ${VAR} is never expanded, the parent env never inherited', async () => {
    process.env.HARNESS_PARENT_SECRET = 'parent-only';
    try {
      const out = (await ran('a.env')).output as Record<string, string>;
      expect(Object.keys(out).sort()).toEqual(['PATH', 'PLAIN', 'PWD', 'TOK']);
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${VAR} is what is checked
      expect(out.PLAIN).toBe('${HOME}:$USER:${TOK}');
      expect(JSON.stringify(out)).not.toContain('parent-only');
    } finally {
      delete process.env.HARNESS_PARENT_SECRET;
    }
  });

  it('a secret split across stdout chunks, or on a stderr line of a failure, is redacted', async () => {
    const s = await ran('a.split');
    expect(s.stdout).toBe('[redacted]\n');
    const m = await ran('a.multi');
    expect(m.status).toBe('exit_nonzero');
    expect(fragments(JSON.stringify(m), 4)).toEqual([]);
  });

  it('a secret the program prints with JSON escapes does not come back decoded in the parsed output', async () => {
    const o = await ran('a.json');
    expect(o.status).toBe('ok');
    expect(JSON.stringify(o.output)).not.toContain(SECRET);
    expect(fragments(JSON.stringify(o.output))).toEqual([]);
  });

  it('a secret placed across the head/tail cut of truncated output is not shown in pieces', async () => {
    // 1 KB ceiling: 512 bytes of head, 512 of tail. The agent picks the padding so the cut falls
    // inside the token and only one byte of it is dropped.
    const half = 512;
    for (const into of [4, 10, SECRET.length - 5]) {
      const n = half - into;
      const m = 1024 + 1 - n - SECRET.length;
      const o = await ran('a.place', { n, m });
      expect(o.status).toBe('output_exceeded');
      expect(o.stdout).toContain('bytes dropped');
      expect(fragments(o.stdout, 4), `cut ${into} characters into the token`).toEqual([]);
    }
    // Far more output: the head ends inside the token and the rest of it is dropped.
    const o = await ran('a.place', { n: half - 12, m: 5000 });
    expect(fragments(o.stdout, 4)).toEqual([]);
  });
});

describe('adversarial: guessing a credential at the cut [SEC-2]', () => {
  it('a guess printed where the output is cut comes back the same whether or not it matches the start of the token', async () => {
    // The 1 KB (1000 bytes) ceiling keeps a 500-byte head: the guess ends exactly at the cut.
    for (const k of [4, 8, SECRET.length - 1]) {
      const n = 500 - 2 - k;
      const right = await ran('a.guess', { n, g: SECRET.slice(0, k) });
      const wrong = await ran('a.guess', { n, g: 'x'.repeat(k) });
      expect(right.status).toBe('output_exceeded');
      expect(right.stdout, `guess of ${k} characters`).toBe(wrong.stdout);
      expect(right.stdout).not.toContain('[redacted]');
    }
  });
});

describe('adversarial: approvals bind the exact call and the agent', () => {
  it('key order does not matter; a different value, an extra key, NFD vs NFC or another agent is another key', () => {
    const base = approvalKey('w.say', 'ag', { v: 'caf\u00e9', n: 1 });
    expect(approvalKey('w.say', 'ag', JSON.parse('{"n":1.0,"v":"caf\u00e9"}'))).toEqual(base);
    for (const [agent, args] of [
      ['ag', { v: 'cafe\u0301', n: 1 }],
      ['ag', { v: 'caf\u00e9', n: 1, x: null }],
      ['ag', { v: 'caf\u00e9', n: '1' }],
      ['ag', JSON.parse('{"v":"caf\u00e9","n":1,"__proto__":{}}')],
      ['other', { v: 'caf\u00e9', n: 1 }],
    ] as const) {
      expect(approvalKey('w.say', agent, args as Record<string, unknown>), JSON.stringify(args)).not.toEqual(
        base,
      );
    }
  });

  it('an approval is used once, and only by the agent it was given to', () => {
    const store = createMemoryApprovalStore();
    const call = (caller: string) =>
      decide(ws, { commandId: 'w.say', caller, args: { v: 'x' }, approvals: store });
    const first = call('ag');
    expect(first.outcome).toBe('approval_required');
    store.approve(first.approvalId as string);
    expect(call('other').outcome).toBe('approval_required');
    expect(call('ag').outcome).toBe('allow');
    expect(call('ag').outcome).toBe('approval_required');
  });

  it('a value naming a path never makes the runner write outside what the program does', async () => {
    await ran('a.s', { v: join(workDir, 'never') });
    expect(existsSync(join(workDir, 'never'))).toBe(false);
  });
});

describe('adversarial: "--" is not safe for every program', () => {
  it('find -- {{dir}} with dir=-delete is refused and deletes nothing [SEC-10] [D4]', async () => {
    const box = mkdtempSync(join(tmpdir(), 'packs-find-'));
    try {
      writeFileSync(join(box, 'keep.txt'), 'precious');
      const findWs = await loadOk(`command_packs:
  - id: files
    cwd: ${box}
    commands:
      - { id: list, argv: [find, --, '{{dir}}', -type, f], effects: read }
`);
      const r = await runPackCommand(findWs, 'files.list', { dir: '-delete' });
      expect(r.ok ? r.outcome.status : r.issues[0]?.code).toBe('render_refused');
      expect(readFileSync(join(box, 'keep.txt'), 'utf8')).toBe('precious');
      // An ordinary directory still lists.
      const listed = await runPackCommand(findWs, 'files.list', { dir: '.' });
      expect(listed.ok && listed.outcome.stdout).toBe('./keep.txt\n');
    } finally {
      rmSync(box, { recursive: true, force: true });
    }
  });
});
