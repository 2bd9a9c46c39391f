import { describe, expect, it } from 'vitest';
import {
  BYTE_SIZE_PATTERN,
  DURATION,
  MAX_BYTE_SIZE,
  MAX_DURATION_MS,
  parseByteSize,
  parseDuration,
  RETENTION_WINDOW,
} from '../src/index';

describe('durations (pack timeouts, runner timeouts, console session limits)', () => {
  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['1.5s', 1500],
    ['0.5s', 500],
    ['5m', 300_000],
    ['1.5h', 5_400_000],
    ['24h', 86_400_000],
    ['30 s', 30_000],
    ['05m', 300_000],
  ])('parses the duration %s', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each([
    '30',
    '0s',
    '0.0001s',
    '25h',
    '1d',
    '5 minutes',
    ' 30s',
    '30s ',
    '.5s',
    '1.s',
    '-1s',
    '+1s',
    '1e3ms',
    '30S',
    '',
  ])('refuses the duration %j', (text) => expect(parseDuration(text)).toBeUndefined());

  it('rounds to a whole millisecond', () => {
    expect(parseDuration('1.0004s')).toBe(1000);
    expect(parseDuration('1.5ms')).toBe(2);
  });

  it('is at most MAX_DURATION_MS, 24 h', () => {
    expect(MAX_DURATION_MS).toBe(86_400_000);
    expect(DURATION.maxMs).toBe(MAX_DURATION_MS);
    expect(parseDuration('1440m')).toBe(MAX_DURATION_MS);
    expect(parseDuration('1441m')).toBeUndefined();
  });
});

describe('retention windows (--retention, delivery_retention, loom audit times)', () => {
  it.each([
    ['90m', 90 * 60_000],
    ['12h', 12 * 3_600_000],
    ['30d', 30 * 86_400_000],
    ['999999d', 999_999 * 86_400_000],
  ])('parses the window %s', (text, ms) => expect(parseDuration(text, RETENTION_WINDOW)).toBe(ms));

  it.each(['30s', '500ms', '1.5d', '0d', '030d', '1000000d', '30 d', ' 30d', 'forever', 'last week', ''])(
    'refuses the window %j',
    (text) => expect(parseDuration(text, RETENTION_WINDOW)).toBeUndefined(),
  );
});

describe('byte sizes', () => {
  it('MB is 10^6 bytes and MiB 2^20 (decided); KB/KiB, GB/GiB likewise [CP-43]', () => {
    expect(parseByteSize('10MB')).toBe(10_000_000);
    expect(parseByteSize('10MiB')).toBe(10_485_760);
    expect(parseByteSize('512KB')).toBe(512_000);
    expect(parseByteSize('512kB')).toBe(512_000);
    expect(parseByteSize('4KiB')).toBe(4096);
    expect(parseByteSize('1GiB')).toBe(1024 ** 3);
    expect(parseByteSize('100B')).toBe(100);
    for (const bad of ['10', '0MB', '2GB', '10mb', '1 TB']) expect(parseByteSize(bad)).toBeUndefined();
  });

  it('rounds down to a whole byte and allows spaces around and between number and unit', () => {
    expect(parseByteSize('1.5KiB')).toBe(1536);
    expect(parseByteSize('0.0001KB')).toBeUndefined();
    expect(parseByteSize(' 10 MB ')).toBe(10_000_000);
  });

  it('is at most MAX_BYTE_SIZE, 1 GiB', () => {
    expect(MAX_BYTE_SIZE).toBe(1024 ** 3);
    expect(parseByteSize('1073741824B')).toBe(MAX_BYTE_SIZE);
    expect(parseByteSize('1073741825B')).toBeUndefined();
  });

  it('BYTE_SIZE_PATTERN is the shape parseByteSize reads, bounds aside', () => {
    expect(BYTE_SIZE_PATTERN.test('5GB')).toBe(true);
    expect(parseByteSize('5GB')).toBeUndefined();
    expect(BYTE_SIZE_PATTERN.test('10 megabytes')).toBe(false);
  });
});
