import { describe, expect, expectTypeOf, it } from 'vitest';
import type { RunOptions, RunResult } from '../src/index';
import { run } from '../src/index';

describe('public API', () => {
  it('exports exactly the documented names', async () => {
    expect(Object.keys(await import('../src/index')).sort()).toEqual([
      'DEFAULT_KILL_GRACE_MS',
      'DEFAULT_MAX_OUTPUT_BYTES',
      'DEFAULT_TIMEOUT_MS',
      'ExecError',
      'ExecErrorCode',
      'SYSTEM_READ_PATHS',
      'createSpawner',
      'detectSandbox',
      'detectSandboxAsync',
      'readAppArmorUsernsSysctl',
      'recognizeAppArmorUsernsRestriction',
      'resolveExecutable',
      'resolveProgram',
      'run',
      'truncationMarker',
    ]);
  });

  it('keeps what other packages of the repository share under ./internal, an unstable entry', async () => {
    expect(Object.keys(await import('../src/internal')).sort()).toEqual([
      'FALLBACK_PATH',
      'SECCOMP_FD',
      'groupAlive',
      'hashProgram',
      'planSandbox',
      'procStatFields',
      'programHashReads',
    ]);
  });

  it('types run as RunOptions → Promise<RunResult>', () => {
    expectTypeOf(run).parameter(0).toEqualTypeOf<RunOptions>();
    expectTypeOf(run).returns.toEqualTypeOf<Promise<RunResult>>();
    expectTypeOf<RunResult['stdoutBytes']>().toEqualTypeOf<{
      readonly seen: number;
      readonly kept: number;
      readonly dropped: number;
    }>();
  });
});
