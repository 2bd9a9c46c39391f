import { describe, expect, it } from 'vitest';

describe('public API', () => {
  it('exports exactly these names', async () => {
    expect(Object.keys(await import('../src/index')).sort()).toEqual([
      'ADAPTERS',
      'AGENT_KINDS',
      'BASE_ENV_NAMES',
      'DEFAULT_CONCURRENCY',
      'DEFAULT_MAX_BODY_BYTES',
      'DEFAULT_RUN_MAX_OUTPUT_BYTES',
      'DEFAULT_RUN_TIMEOUT_MS',
      'DELIVERY_HEADERS',
      'EVENT_HEADERS',
      'HARNESS_KINDS',
      'MATRIX_KEYS',
      'PROMPT_DELIVERIES',
      'RunStore',
      'RunnerError',
      'RunnerErrorCode',
      'SCHEMES',
      'SIGNATURE_HEADERS',
      'Supervisor',
      'TRANSCRIPT_SOURCES',
      'cell',
      'describeHarness',
      'formatRunnerIssue',
      'genericOneShot',
      'loadRunnerConfig',
      'observeRun',
      'planSpawn',
      'readClaudeCode',
      'readCodex',
      'readPi',
      'runnerFileSchema',
      'runnerJsonSchema',
      'runnerPaths',
      'signBody',
      'verifySignature',
    ]);
  });
});
