import { describe, expect, it } from 'vitest';
import { redact } from '../src/credentials';
import {
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_TIMEOUT_MS,
  PacksError,
  PacksErrorCode,
  REDACTED,
} from '../src/index';

// How a pack writes its bounds (`5m`, `10MB`) is @harness/config's (its test/units.test.ts).
describe('built-in bounds', () => {
  it('the built-in defaults are 30 s and 10 MiB [CP-45, CP-46]', () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(30_000);
    expect(DEFAULT_MAX_OUTPUT_BYTES).toBe(10 * 1024 * 1024);
  });
});

describe('redaction', () => {
  it('replaces every occurrence, longest secret first, and a secret cut off at the end of truncated output', () => {
    expect(redact('a SECRET b SECRETS', ['SECRET', 'SECRETS'])).toBe(`a ${REDACTED} b ${REDACTED}`);
    // Truncated: the last six characters (the longest secret's length) go, whatever they are.
    expect(redact('tail SECRE', ['SECRET'], true)).toBe('tail');
    expect(redact('tail ABCDE', ['SECRET'], true)).toBe('tail');
    expect(redact('tail SECRE', ['SECRET'], false)).toBe('tail SECRE');
  });
});

describe('PacksError', () => {
  it('carries a code and the issues, formatted as file:line:column lines', () => {
    const e = PacksError.fromIssues([
      {
        code: PacksErrorCode.schema,
        message: 'x: expected y, found z',
        path: ['x'],
        file: 'w.yaml',
        line: 2,
        column: 3,
        details: { expected: 'y', found: 'z' },
      },
    ]);
    expect([e.code, e.message, e.issues.length]).toEqual(['schema', 'w.yaml:2:3: x: expected y, found z', 1]);
  });
});
