// Reading a request or an answer off the wire: a failure is data, and its message names the field
// that was wrong, what it must be and what it held.
import { describe, expect, it } from 'vitest';
import { parseAnswer, parseRequest } from '../src/schema';

const line = (fields: Record<string, unknown>): string =>
  JSON.stringify({ protocol: 'loom-broker/2', id: 'r1', ...fields });

describe('parseRequest', () => {
  it('reads a run and drops what the protocol does not define, an actor or run included', () => {
    expect(
      parseRequest(line({ op: 'run', command: 'git.status', args: { a: 1 }, actor: 'me', run: 'r-9' })),
    ).toEqual({
      ok: true,
      request: { protocol: 'loom-broker/2', id: 'r1', op: 'run', command: 'git.status', args: { a: 1 } },
    });
  });

  it('hands on the arguments object as it was sent, an own __proto__ key included', () => {
    const parsed = parseRequest(
      `{"protocol":"loom-broker/2","id":"r1","op":"run","command":"a.b","args":{"__proto__":{"x":1}}}`,
    );
    expect(parsed.ok && Object.keys(parsed.request.op === 'run' ? parsed.request.args : {})).toEqual([
      '__proto__',
    ]);
  });

  it('reads a line already parsed as it reads its text', () => {
    const value = { protocol: 'loom-broker/2', id: 'r1', op: 'cancel', target: 'r0' };
    expect(parseRequest(value)).toEqual(parseRequest(JSON.stringify(value)));
    expect(parseRequest(value).ok).toBe(true);
  });

  it('names the field that was wrong and what it held', () => {
    const parsed = parseRequest(line({ op: 'run', command: 'git.status', args: ['-C', '/'] }));
    expect(parsed).toMatchObject({ ok: false, id: 'r1', issues: [{ path: '/args' }] });
    expect(!parsed.ok && parsed.error).toMatchInlineSnapshot(`
      {
        "code": "bad_request",
        "message": "the request does not match loom-broker/2: /args must be an object (found an array)",
      }
    `);
  });

  it('names every wrong field at once: the envelope as well as an unknown op', () => {
    const parsed = parseRequest({ protocol: 1, op: 'approve' });
    expect(!parsed.ok && parsed.issues.map((i) => i.path)).toEqual(['/protocol', '/id', '/op']);
    expect(!parsed.ok && parsed.error.message).toMatchInlineSnapshot(
      `"the request does not match loom-broker/2: /protocol must be "loom-broker/2" (found 1); /id is missing: it must be a string; /op must be one of "hello", "list", "run", "cancel" (found "approve")"`,
    );
  });

  it('names a bound by its numbers, and a long value by its length rather than echoing it', () => {
    const parsed = parseRequest(
      line({ id: 'x'.repeat(129), op: 'run', command: 'a.b', args: {}, expectedVersion: 0 }),
    );
    expect(!parsed.ok && parsed.error.message).toMatchInlineSnapshot(
      `"the request does not match loom-broker/2: /id must hold 1 to 128 characters (found a string of 129 characters); /expectedVersion must be a whole number of at least 1 (found 0)"`,
    );
  });

  it('counts characters as code points, as JSON Schema does', () => {
    expect(parseRequest(line({ id: '😀'.repeat(128), op: 'hello' })).ok).toBe(true);
    expect(parseRequest(line({ id: '😀'.repeat(129), op: 'hello' })).ok).toBe(false);
  });

  it('answers with the line’s id when it is a string, even one the protocol refuses, else with ""', () => {
    expect(parseRequest(line({ id: '', op: 'hello' }))).toMatchObject({ ok: false, id: '' });
    expect(parseRequest(line({ id: 'x'.repeat(200), op: 'nope' }))).toMatchObject({
      ok: false,
      id: 'x'.repeat(200),
    });
    expect(parseRequest(line({ id: 7, op: 'hello' }))).toMatchObject({ ok: false, id: '' });
    expect(parseRequest('[1]')).toMatchObject({ ok: false, id: '', error: { code: 'bad_request' } });
  });

  it('refuses a line that is not JSON, with no issue to name', () => {
    expect(parseRequest('{"op":')).toEqual({
      ok: false,
      id: '',
      error: { code: 'bad_request', message: 'the request line is not JSON' },
      issues: [],
    });
  });

  it('refuses a request naming another version by name, before judging anything else', () => {
    expect(parseRequest({ protocol: 'loom-broker/1', id: 'v', op: 'teleport' })).toEqual({
      ok: false,
      id: 'v',
      error: {
        code: 'unsupported_protocol',
        message:
          'the request speaks loom-broker/1; this side speaks loom-broker/2. Use a client and a broker of the same protocol version.',
      },
      issues: [],
    });
  });
});

describe('parseAnswer', () => {
  it('keeps a code of another host and fills in conservatively what the answer left out', () => {
    expect(parseAnswer({ ok: false, id: 'a.b', code: 'quota_exceeded' })).toEqual({
      ok: true,
      answer: {
        ok: false,
        id: 'a.b',
        code: 'quota_exceeded',
        mayHaveLanded: true,
        completed: [],
        kind: 'result',
        body: null,
      },
    });
  });

  it('keeps a label raw, even one that is not readable, and drops a reason that is not a string', () => {
    const parsed = parseAnswer({
      ok: true,
      id: 'a.b',
      code: 'ok',
      mayHaveLanded: false,
      completed: [],
      kind: 'result',
      body: 1,
      reason: 3,
      ifc: null,
    });
    expect(parsed).toEqual({
      ok: true,
      answer: {
        ok: true,
        id: 'a.b',
        code: 'ok',
        mayHaveLanded: false,
        completed: [],
        ifc: null,
        kind: 'result',
        body: 1,
      },
    });
    expect(parsed.ok && 'reason' in parsed.answer).toBe(false);
  });

  it('reads a kind it does not know as a result, its body the JSON it is', () => {
    const body = { content: [{ type: 'text', text: 'hi' }], isError: false };
    const parsed = parseAnswer({ ok: true, id: 'a.b', code: 'ok', kind: 'image_result', body });
    expect(parsed).toMatchObject({ ok: true, answer: { kind: 'result', body } });
  });

  it('keeps a body of a known kind as it was sent, a field the kind does not define included', () => {
    const body = { extra: 1, message: 'ask', approval: { id: 'apr-1', expires_at: null, plan_hash: null } };
    const parsed = parseAnswer({
      ok: false,
      id: 'a.b',
      code: 'refused',
      reason: 'approval_required',
      mayHaveLanded: false,
      completed: [],
      kind: 'held',
      body,
    });
    expect(parsed.ok && parsed.answer.kind === 'held' && parsed.answer.body).toBe(body);
  });

  it('names the field of a body that does not fit its kind', () => {
    const parsed = parseAnswer({
      ok: true,
      id: 'a.b',
      code: 'ok',
      kind: 'ran',
      body: { status: 'ok', output: 'x', stderr: '', exitCode: '0', durationMs: 1 },
    });
    expect(parsed).toMatchObject({ ok: false, issues: [{ path: '/body/exitCode' }] });
    expect(!parsed.ok && parsed.error).toMatchInlineSnapshot(
      `"the answer is not a loom-broker/2 command answer: /body/exitCode must be a number (found "0")"`,
    );
  });

  it('names the field that was wrong and what it held', () => {
    const parsed = parseAnswer({ ok: true, id: 'a.b', code: 'ok', mayHaveLanded: 'yes' });
    expect(parsed).toMatchObject({ ok: false, issues: [{ path: '/mayHaveLanded' }] });
    expect(!parsed.ok && parsed.error).toMatchInlineSnapshot(
      `"the answer is not a loom-broker/2 command answer: /mayHaveLanded must be a boolean (found "yes")"`,
    );
  });

  it('names a wrong item of a list by its index', () => {
    const parsed = parseAnswer({ ok: true, id: 'a.b', code: 'ok', completed: ['op-1', 2] });
    expect(!parsed.ok && parsed.error).toMatchInlineSnapshot(
      `"the answer is not a loom-broker/2 command answer: /completed/1 must be a string (found 2)"`,
    );
  });

  it('refuses a value that is not an answer at all', () => {
    expect(parseAnswer(null)).toMatchObject({
      ok: false,
      error: 'the answer is not a loom-broker/2 command answer: the answer must be an object (found null)',
    });
    expect(parseAnswer({ ok: true })).toMatchObject({
      ok: false,
      issues: [{ path: '/id' }, { path: '/code' }],
    });
  });
});
