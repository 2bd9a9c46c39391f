import { describe, expect, it } from 'vitest';
import { redact } from '../src/credentials';
import {
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_TIMEOUT_MS,
  PacksError,
  PacksErrorCode,
  parseByteSize,
  parseDuration,
  REDACTED,
} from '../src/index';

describe('human units', () => {
  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['1.5s', 1500],
    ['5m', 300_000],
    ['24h', 86_400_000],
  ])('parses the duration %s', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['30', '0s', '25h', '5 minutes', '-1s', ''])('refuses the duration %j', (text) =>
    expect(parseDuration(text)).toBeUndefined(),
  );

  it('MB is 10^6 bytes and MiB 2^20 (decided); KB/KiB, GB/GiB likewise [CP-43]', () => {
    expect(parseByteSize('10MB')).toBe(10_000_000);
    expect(parseByteSize('10MiB')).toBe(10_485_760);
    expect(parseByteSize('512KB')).toBe(512_000);
    expect(parseByteSize('4KiB')).toBe(4096);
    expect(parseByteSize('1GiB')).toBe(1024 ** 3);
    expect(parseByteSize('100B')).toBe(100);
    for (const bad of ['10', '0MB', '2GB', '10mb', '1 TB']) expect(parseByteSize(bad)).toBeUndefined();
  });

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
