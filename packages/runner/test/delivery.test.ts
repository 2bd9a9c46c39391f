// Prompt delivery through real processes: the FAKE agent (test/fakes/fake-agent.mjs) records what it
// received, and checks from inside, with `test -t`, which descriptors are terminals.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Supervisor } from '../src/supervisor';
import { fakeAgents, mustLoad } from './helpers';

let fakes: ReturnType<typeof fakeAgents>;
let instance: ReturnType<typeof tempDir>;
const supervisors: Supervisor[] = [];

beforeEach(() => {
  fakes = fakeAgents();
  instance = tempDir('runner-instance-');
});
afterEach(async () => {
  for (const s of supervisors.splice(0)) await s.stop();
  fakes.cleanup();
  instance.cleanup();
});

function supervisor(harness: Record<string, unknown>) {
  const config = mustLoad({
    harnesses: [{ id: 'h', env: { FAKE_RECORD_DIR: fakes.records }, workdir: fakes.dir, ...harness }],
  });
  const s = new Supervisor(config, {
    instanceDir: instance.path,
    env: { PATH: fakes.path, HOME: '/nonexistent', SECRET: 'not-inherited' },
    log: () => undefined,
  });
  supervisors.push(s);
  return s;
}

const NASTY = `${'0123456789abcdef'.repeat(400)}\n^C:\u0003 ^D:\u0004 ^Z:\u001a end; $(rm -rf /) "quoted" \\ ${'é'.repeat(10)}`;

describe('stdin delivery', () => {
  it('gives fd 0 a pipe and fds 1 and 2 the terminal, checked with test -t inside the child [TM-95] [TM-100]', async () => {
    const s = supervisor({
      kind: 'command',
      argv: [join(fakes.bin, 'record')],
      prompt: 'hello',
      prompt_delivery: 'stdin',
    });
    const run = await s.runNow('h');
    expect(run.status).toBe('succeeded');
    const rec = fakes.read(run.id);
    expect(rec.tty).toEqual({ 0: false, 1: true, 2: true });
    expect(rec.ctty).toMatch(/^pts\/\d+$/);
  });

  it('writes the whole prompt then EOF, byte-exact past 4 KiB and with ^C/^D/^Z as data [TM-96] [TM-97]', async () => {
    expect(Buffer.byteLength(NASTY)).toBeGreaterThan(4096);
    const s = supervisor({
      kind: 'command',
      argv: [join(fakes.bin, 'record')],
      prompt: NASTY,
      prompt_delivery: 'stdin',
    });
    const run = await s.runNow('h');
    expect(run.status).toBe('succeeded');
    expect(Buffer.from(fakes.read(run.id).stdin, 'base64').toString('utf8')).toBe(NASTY);
  });

  it('never echoes the prompt into the log, which holds only what the program wrote [TM-97]', async () => {
    const s = supervisor({
      kind: 'command',
      argv: [join(fakes.bin, 'record')],
      prompt: NASTY,
      prompt_delivery: 'stdin',
      env: { FAKE_RECORD_DIR: fakes.records, FAKE_OUTPUT: 'done\n' },
    });
    const run = await s.runNow('h');
    const log = readFileSync(run.log_file as string, 'utf8');
    expect(log).toBe('done\r\n');
    expect(log).not.toContain('0123456789abcdef');
  });

  it('marks the run stdin_is_prompt and records the mode as prompt_delivery, leaving delivery and source null for a run started by hand [TM-99]', async () => {
    const s = supervisor({
      kind: 'command',
      argv: [join(fakes.bin, 'record')],
      prompt: 'x',
      prompt_delivery: 'stdin',
    });
    const run = await s.runNow('h');
    expect(run).toMatchObject({
      prompt_delivery: 'stdin',
      stdin_is_prompt: true,
      delivery: null,
      source: null,
    });
    expect(s.store.get(run.id)).toEqual(run);
  });

  it('does not fail a run whose program exits without reading its prompt: the exit status decides [TM-98]', async () => {
    const big = 'y'.repeat(2 * 1024 * 1024);
    const ok = supervisor({ kind: 'command', argv: ['/bin/true'], prompt: big, prompt_delivery: 'stdin' });
    expect(await ok.runNow('h')).toMatchObject({ status: 'succeeded', exit_code: 0 });
  });

  it('reports the exit status of a program that fails', async () => {
    const s = supervisor({
      kind: 'command',
      argv: ['/bin/sh', '-c', 'exit 3'],
      prompt: 'x',
      prompt_delivery: 'stdin',
    });
    expect(await s.runNow('h')).toMatchObject({ status: 'failed', reason: 'exit_code', exit_code: 3 });
  });

  it('kills a stdin run past its timeout', async () => {
    const s = supervisor({
      kind: 'command',
      argv: ['/bin/sleep', '30'],
      prompt: 'x',
      prompt_delivery: 'stdin',
      timeout: '300ms',
    });
    expect(await s.runNow('h')).toMatchObject({ status: 'failed', reason: 'timed_out' });
  });
});

describe('file delivery', () => {
  it('writes the prompt 0600 before spawn to <jobs dir>/<harness>/<run id>.prompt and exports it [TM-92] [TM-93]', async () => {
    const s = supervisor({
      kind: 'command',
      argv: [join(fakes.bin, 'record'), '{{prompt_file}}'],
      prompt: NASTY,
      prompt_delivery: 'file',
    });
    const run = await s.runNow('h');
    const rec = fakes.read(run.id);
    const expected = join(instance.path, 'runner', 'jobs', 'h', `${run.id}.prompt`);
    expect(rec.argv).toEqual([expected]);
    expect(rec.env.HARNESS_PROMPT_FILE).toBe(expected);
    expect(rec.promptFileMode).toBe('600');
    expect(rec.promptFileText).toBe(NASTY);
    expect(rec.tty).toEqual({ 0: false, 1: false, 2: false });
  });

  it('removes the prompt file when the run ends, and any left over at the next start [TM-94]', async () => {
    const s = supervisor({
      kind: 'command',
      argv: [join(fakes.bin, 'record')],
      prompt: 'p',
      prompt_delivery: 'file',
    });
    const run = await s.runNow('h');
    expect(existsSync(join(instance.path, 'runner', 'jobs', 'h', `${run.id}.prompt`))).toBe(false);
    expect(readdirSync(join(instance.path, 'runner', 'jobs', 'h'))).toEqual([]);
  });
});

describe('argv delivery and the adapters', () => {
  it('passes the prompt as one argv element to a command [TM-89]', async () => {
    const s = supervisor({
      kind: 'command',
      argv: [join(fakes.bin, 'record'), '--', '{{prompt}}'],
      prompt: NASTY,
    });
    const run = await s.runNow('h');
    expect(fakes.read(run.id).argv).toEqual(['--', NASTY]);
    expect(run.prompt_delivery).toBe('argv');
  });

  it('runs each agent kind by its executable on PATH with its one-shot argv [TM-78] [TM-108] [TM-109] [TM-120]', async () => {
    const expected: Record<string, [string, string[]]> = {
      'claude-code': ['claude', ['-p', '--model', 'm/x', 'do it']],
      codex: ['codex', ['exec', '--model', 'm/x', 'do it']],
      pi: ['pi', ['--print', '--model', 'm/x', 'do it']],
      omp: ['omp', ['--print', '--model', 'm/x', 'do it']],
    };
    for (const [kind, [name, argv]] of Object.entries(expected)) {
      const s = supervisor({ kind, prompt_template: 'do {{harness.name?}}', model: 'm/x' });
      const run = await s.runNow('h');
      const rec = fakes.read(run.id);
      expect([rec.name, rec.argv]).toEqual([name, argv.map((a) => (a === 'do it' ? 'do h' : a))]);
      await s.stop();
      supervisors.splice(supervisors.indexOf(s), 1);
    }
  });

  it('gives the program the operator environment only', async () => {
    const s = supervisor({ kind: 'command', argv: [join(fakes.bin, 'record')] });
    const run = await s.runNow('h');
    const env = fakes.read(run.id).env;
    expect(env.SECRET).toBeUndefined();
    expect(env).toMatchObject({
      HOME: '/nonexistent',
      HARNESS_RUN_ID: run.id,
      HARNESS_NAME: 'h',
      HARNESS_TRIGGER: 'manual',
      FAKE_RECORD_DIR: fakes.records,
    });
  });

  it('records a missing executable as a failed run naming it', async () => {
    const s = supervisor({ kind: 'command', argv: ['no-such-program-xyz'] });
    const run = await s.runNow('h');
    expect(run).toMatchObject({ status: 'failed', reason: 'spawn_failed' });
    expect(run.message).toContain('no-such-program-xyz');
    expect(statSync(join(instance.path, 'runner', 'runs.db')).isFile()).toBe(true);
  });
});
