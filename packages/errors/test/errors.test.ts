import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  CodedError,
  type CodeOf,
  defineCodes,
  describeFound,
  formatIssue,
  type IssueOf,
  showPath,
  valueAt,
} from '../src/index';

const DemoErrorCode = defineCodes({ not_found: 'not_found', bad_value: 'bad_value' });
type DemoErrorCode = CodeOf<typeof DemoErrorCode>;
class DemoError extends CodedError<DemoErrorCode, { bad_value: { expected: string; found: string } }> {
  override readonly name = 'DemoError';
}

describe('CodedError', () => {
  it('carries its code, message, name, details and cause', () => {
    const cause = new Error('underneath');
    const error = new DemoError('bad_value', 'x: expected a list, found "a"', {
      cause,
      details: { expected: 'a list', found: '"a"' },
    });
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(CodedError);
    expect(error.name).toBe('DemoError');
    expect(error.code).toBe('bad_value');
    expect(error.message).toBe('x: expected a list, found "a"');
    expect(error.details).toEqual({ expected: 'a list', found: '"a"' });
    expect(error.cause).toBe(cause);
    expect(String(error)).toBe('DemoError: x: expected a list, found "a"');
  });

  it('has no cause property when none is given, and no details where the code declares none', () => {
    const error = new DemoError('not_found', 'nothing at x');
    expect('cause' in error).toBe(false);
    expect(error.details).toBeUndefined();
  });

  it('narrows code and details together with is()', () => {
    const error: DemoError = new DemoError('bad_value', 'm', { details: { expected: 'e', found: 'f' } });
    expect(error.is('not_found')).toBe(false);
    if (error.is('bad_value'))
      expectTypeOf(error.details).toEqualTypeOf<{ expected: string; found: string }>();
    expect(error.is('bad_value')).toBe(true);
  });

  it('accepts only snake_case code tables keyed by their own values', () => {
    expect(defineCodes({ ok_1: 'ok_1' })).toEqual({ ok_1: 'ok_1' });
    // @ts-expect-error an upper-case code is refused at compile time
    defineCodes({ INVALID_ARGV: 'INVALID_ARGV' });
    // @ts-expect-error a camelCase code is refused at compile time
    defineCodes({ queueBusy: 'queueBusy' });
    // @ts-expect-error a key spelled differently from its value is refused at compile time
    defineCodes({ queue_busy: 'busy' });
  });
});

describe('issues', () => {
  type DemoIssue = IssueOf<DemoErrorCode, { bad_value: { expected: string } }>;

  it('formats an issue as file:line:column: message, file: message or the bare message', () => {
    const base = { code: 'not_found', message: 'm', path: [] } as const;
    expect(formatIssue({ ...base, file: 'a.yaml', line: 3, column: 7 })).toBe('a.yaml:3:7: m');
    expect(formatIssue({ ...base, file: 'a.yaml', line: 3 })).toBe('a.yaml:3:1: m');
    expect(formatIssue({ ...base, file: 'a.yaml' })).toBe('a.yaml: m');
    expect(formatIssue(base)).toBe('m');
  });

  it('types the details of each code in the issue union', () => {
    const issue: DemoIssue = { code: 'bad_value', message: 'm', path: ['a'], details: { expected: 'e' } };
    if (issue.code === 'bad_value') expectTypeOf(issue.details).toEqualTypeOf<{ expected: string }>();
    expect(issue.details).toEqual({ expected: 'e' });
  });

  it('words a path and a found value the way every loader message does', () => {
    expect(showPath(['command_packs', 0, 'commands', 1, 'argv', 2])).toBe(
      'command_packs[0].commands[1].argv[2]',
    );
    expect(showPath([])).toBe('(root)');
    expect([undefined, null, [1, 2], { a: 1 }, 'x', 4, true].map(describeFound)).toEqual([
      'nothing',
      'null',
      'a list of 2',
      'a map',
      '"x"',
      'number 4',
      'boolean true',
    ]);
    expect(describeFound('y'.repeat(80))).toBe(JSON.stringify(`${'y'.repeat(57)}...`));
  });

  it('reads the value at a path, or nothing where the path leaves the document', () => {
    expect(valueAt({ a: [{ b: 5 }] }, ['a', 0, 'b'])).toBe(5);
    expect(valueAt({ a: 1 }, ['a', 'b'])).toBeUndefined();
  });
});
