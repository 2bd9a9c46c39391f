import { describe, expect, it } from 'vitest';

describe('public API', () => {
  it('exports exactly these names', async () => {
    expect(Object.keys(await import('../src/index')).sort()).toEqual([
      'ADAPTERS',
      'AGENT_KINDS',
      'BASE_ENV_NAMES',
      'DEFAULT_MAX_BODY_BYTES',
      'DEFAULT_RUN_MAX_OUTPUT_BYTES',
      'DEFAULT_RUN_TIMEOUT_MS',
      'HARNESS_KINDS',
      'MATRIX_KEYS',
      'PROMPT_DELIVERIES',
      'RunnerError',
      'RunnerErrorCode',
      'SCHEMES',
      'cell',
      'formatRunnerIssue',
      'genericOneShot',
      'loadRunnerConfig',
      'planSpawn',
      'runnerFileSchema',
      'runnerJsonSchema',
    ]);
  });
});
