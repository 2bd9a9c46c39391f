import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('public API', () => {
  it('exports exactly these names', async () => {
    expect(Object.keys(await import('../src/index')).sort()).toEqual([
      'ADAPTERS',
      'AGENT_KINDS',
      'BASE_ENV_NAMES',
      'DEFAULT_CONCURRENCY',
      'DEFAULT_DELIVERY_RETENTION_MS',
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
  it('gives the run record types a browser page reads under ./records, with no runtime and no imports but types', async () => {
    expect(Object.keys(await import('../src/records'))).toEqual([]);
    for (const file of ['../src/records.ts', '../src/observe/types.ts']) {
      const source = readFileSync(new URL(file, import.meta.url), 'utf8');
      const imports = source.match(/^import .*$/gm) ?? [];
      expect(imports.every((line) => line.startsWith('import type ') && line.includes("from './"))).toBe(
        true,
      );
    }
  });
});
