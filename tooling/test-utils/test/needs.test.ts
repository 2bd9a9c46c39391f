// needs: one way to skip on a missing program or service, which under CI=true fails instead.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { binary, needs, type Requirement, working } from '../src/needs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ci = process.env.CI;
afterEach(() => {
  if (ci === undefined) delete process.env.CI;
  else process.env.CI = ci;
});

const missing: Requirement = { what: 'a thing', present: false, install: 'get the thing' };

describe('needs', () => {
  it('runs a block whose requirements are all here', () => {
    const here = needs('sh', { what: 'a thing', present: true, install: '' });
    expect([here.present, here.runs, here.missing]).toEqual([true, true, undefined]);
  });

  it('outside CI, skips a block that lacks one, saying what is missing and how to get it', () => {
    delete process.env.CI;
    const lacking = needs('sh', missing, binary('harness-no-such-program'));
    expect([lacking.present, lacking.runs]).toEqual([false, false]);
    expect(lacking.missing).toBe(
      'needs a thing and harness-no-such-program on PATH, missing here: get the thing; install harness-no-such-program with your package manager',
    );
  });

  it('under CI=true, runs a block that lacks one, so that it fails; unless CI cannot provide it either', () => {
    process.env.CI = 'true';
    expect(needs(missing).runs).toBe(true);
    expect(needs({ ...missing, notInCi: 'no package has it' }).runs).toBe(false);
  });

  it('finds a command that works, and one that fails or is absent as missing', () => {
    expect(working('sh', ['sh', '-c', 'exit 0'], '').present).toBe(true);
    expect(working('sh', ['sh', '-c', 'exit 3'], '').present).toBe(false);
    expect(working('nothing', ['harness-no-such-program'], '').present).toBe(false);
  });

  it('under CI=true, fails the block and the test that lack one, naming it; outside CI skips them', () => {
    const vitest = join(HERE, '..', 'node_modules', 'vitest', 'vitest.mjs');
    const run = (env: NodeJS.ProcessEnv) =>
      spawnSync(process.execPath, [vitest, 'run'], {
        cwd: join(HERE, 'fixtures', 'ci-missing'),
        encoding: 'utf8',
        env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
      });
    const inCi = run({ CI: 'true' });
    expect(inCi.status).toBe(1);
    expect(inCi.stdout + inCi.stderr).toContain(
      'CI=true, and this test needs harness-no-such-program on PATH, missing here: install harness-no-such-program with your package manager (outside CI it would skip)',
    );
    const outside = run({});
    expect(outside.status, outside.stdout + outside.stderr).toBe(0);
    expect(outside.stderr).toContain(
      'skipped: needs harness-no-such-program on PATH, missing here: install harness-no-such-program with your package manager (under CI=true this fails instead)',
    );
  }, 60_000);
});
