// The bounded newline framing of MCP over stdio (src/mcp-framing.ts), on its own: lines, the bound,
// and the request id read from a line too large to keep.
import { fcRuns, fcSeed } from '@harness/test-utils';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_BYTES, type MessageLine, MessageLineReader, messageTooLarge } from '../src/mcp-framing';

const MAX = 64;

/** Every line `text` holds, read in chunks cut at `cuts`; also the most bytes held at any time. */
function readAll(text: string, cuts: number[], max = MAX): { lines: MessageLine[]; held: number } {
  const bytes = Buffer.from(text);
  const reader = new MessageLineReader(max);
  const lines: MessageLine[] = [];
  let held = 0;
  let start = 0;
  for (const end of [...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b), bytes.length]) {
    lines.push(...reader.push(bytes.subarray(start, end)));
    held = Math.max(held, reader.held);
    start = end;
  }
  return { lines, held };
}

/** The id the reader reads from `message` as one line over the bound. */
function idOfOversized(message: string): unknown {
  const { lines } = readAll(`${message}\n`, [], 4);
  expect(lines).toHaveLength(1);
  return (lines[0] as { id?: unknown }).id;
}

describe('MessageLineReader', () => {
  it('reads each line whole, whatever the chunks, and holds no more than the bound of a line too large', () => {
    const line = fc.oneof(
      fc.string({ unit: 'binary', maxLength: MAX }).map((s) => s.replaceAll('\n', ' ')),
      fc.string({ minLength: MAX, maxLength: 4 * MAX }).map((s) => s.replaceAll('\n', ' ')),
    );
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 8 }),
        fc.array(fc.nat(2000), { maxLength: 12 }),
        (texts, cuts) => {
          const { lines, held } = readAll(texts.map((t) => `${t}\n`).join(''), cuts);
          expect(lines).toEqual(
            texts.map((t) => {
              const bytes = Buffer.byteLength(t);
              if (bytes > MAX) return { ok: false, reason: 'too_large', bytes, id: null };
              return { ok: true, text: t.endsWith('\r') ? t.slice(0, -1) : t };
            }),
          );
          expect(held).toBeLessThanOrEqual(MAX);
        },
      ),
      { seed: fcSeed(), numRuns: fcRuns(300) },
    );
  });

  it('keeps an unfinished line until its newline arrives', () => {
    const reader = new MessageLineReader(MAX);
    expect(reader.push(Buffer.from('{"a":'))).toEqual([]);
    expect(reader.push(Buffer.from('1}\r\n{"b"'))).toEqual([{ ok: true, text: '{"a":1}' }]);
    expect(reader.held).toBe(4);
  });

  it('decodes a character whose bytes two chunks share', () => {
    const bytes = Buffer.from('"é€😀"\n');
    for (let cut = 1; cut < bytes.length; cut++)
      expect(readAll(bytes.toString(), [cut]).lines).toEqual([{ ok: true, text: '"é€😀"' }]);
  });
});

describe('the request id of a line over the bound', () => {
  const cases: [string, string, unknown][] = [
    [
      'a number id after the params, as the SDK client writes it',
      '{"method":"m","params":{"p":"x"},"jsonrpc":"2.0","id":7}',
      7,
    ],
    ['a string id before the method', '{"jsonrpc":"2.0","id":"r-1","method":"m","params":{}}', 'r-1'],
    ['an id spaced out', '{ "method" : "m" , "id" : 12 , "params" : [1, {"id": 3}] }', 12],
    ['the last of two ids, as JSON.parse reads it', '{"id":1,"method":"m","id":2}', 2],
    ['no id: a notification', '{"jsonrpc":"2.0","method":"notifications/x","params":{"id":5}}', null],
    ['no method: a response', '{"jsonrpc":"2.0","id":9,"result":{"content":"x"}}', null],
    ['an id only inside params', '{"method":"m","params":{"id":5,"x":"\\"id\\":6"}}', null],
    ['an id that is not an integer', '{"method":"m","id":1.5}', null],
    ['an id that is an object', '{"method":"m","id":{"a":1}}', null],
    ['an id that is null', '{"method":"m","id":null}', null],
    ['an id longer than 256 bytes', `{"method":"m","id":"${'i'.repeat(300)}"}`, null],
    ['a key spelled with an escape', '{"method":"m","\\u0069d":4}', null],
    ['a batch', '[{"jsonrpc":"2.0","id":1,"method":"m"}]', null],
    ['a line that is not JSON', 'x'.repeat(40), null],
    ['a line cut before its id ends', '{"method":"m","id":12', null],
  ];
  for (const [what, message, id] of cases) {
    it(`reads ${JSON.stringify(id)} from ${what}`, () => {
      expect(idOfOversized(message)).toEqual(id);
    });
  }

  it('reads the same id whatever the chunks', () => {
    const text = `${JSON.stringify({ method: 'tools/call', params: { v: 'é"\\'.repeat(40) }, jsonrpc: '2.0', id: 'abc' })}\n`;
    fc.assert(
      fc.property(fc.array(fc.nat(Buffer.byteLength(text)), { maxLength: 10 }), (cuts) => {
        expect(readAll(text, cuts, 16).lines).toEqual([
          { ok: false, reason: 'too_large', bytes: Buffer.byteLength(text) - 1, id: 'abc' },
        ]);
      }),
      { seed: fcSeed(), numRuns: fcRuns(200) },
    );
  });
});

describe('messageTooLarge', () => {
  it('names the bound in bytes and MiB and how to send less, with the size when it is known', () => {
    expect(MAX_MESSAGE_BYTES).toBe(4 * 1024 * 1024);
    expect(messageTooLarge(5_000_000)).toMatchInlineSnapshot(`
      {
        "code": -32600,
        "data": {
          "bytes": 5000000,
          "maxBytes": 4194304,
        },
        "message": "Invalid Request: an MCP message to harness serve may hold at most 4194304 bytes (4 MiB), this one held 5000000 bytes; it was discarded unread. Send less in one message: split a run_command batch into several calls, and keep large content out of tool arguments.",
      }
    `);
    expect(messageTooLarge().message).toContain('this one held more than that;');
    expect(messageTooLarge().data).toEqual({ maxBytes: 4194304 });
  });
});
