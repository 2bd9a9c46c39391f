import { describe, expect, it } from 'vitest';
import { encodeLine, exceedsBytes, LineReader, utf8Length } from '../src/index';

function drain(reader: LineReader): unknown[] {
  const out: unknown[] = [];
  for (let line = reader.next(); line; line = reader.next()) out.push(line.ok ? line.text : 'TOO_LONG');
  return out;
}

describe('newline framing', () => {
  it('joins a line that arrives in several chunks', () => {
    const r = new LineReader(100);
    expect(r.push('{"a":')).toBe(true);
    expect(r.queued).toBe(0);
    expect(r.push('1}\n{"b"')).toBe(true);
    expect(r.push(':2}\n')).toBe(true);
    expect(drain(r)).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('queues complete lines until they are taken', () => {
    const r = new LineReader(100);
    r.push('a\nb\nc\n');
    expect(r.queued).toBe(3);
    expect(r.next()).toEqual({ ok: true, text: 'a' });
    expect(r.queued).toBe(2);
  });

  it('counts the cap in bytes of UTF-8, not in characters', () => {
    const r = new LineReader(8);
    r.push(`${'é'.repeat(4)}\n`); // 8 bytes: fits
    r.push(`${'é'.repeat(5)}\n`); // 10 bytes: over
    expect(drain(r)).toEqual(['éééé', 'TOO_LONG']);
  });

  it('marks a complete line over the cap and keeps reading the next', () => {
    const r = new LineReader(4);
    r.push('12345\nok\n');
    expect(drain(r)).toEqual(['TOO_LONG', 'ok']);
  });

  it('reports an unterminated line that grows past the cap and forgets it', () => {
    const r = new LineReader(4);
    r.push('done\n');
    expect(r.push('123')).toBe(true);
    expect(r.push('45')).toBe(false);
    expect(drain(r)).toEqual(['done']);
  });

  it('counts UTF-8 bytes like the encoder, surrogate pairs included', () => {
    for (const text of ['', 'abc', 'é', '€', '😀', 'a😀é€', '\ud800x']) {
      expect(utf8Length(text), text).toBe(new TextEncoder().encode(text).length);
    }
    expect(exceedsBytes('😀', 3)).toBe(true);
    expect(exceedsBytes('😀', 4)).toBe(false);
  });

  it('encodes one value as one compact line', () => {
    expect(encodeLine({ a: 'x\ny' })).toBe('{"a":"x\\ny"}\n');
  });
});
