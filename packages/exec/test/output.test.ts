import { fcRuns } from '@harness/test-utils';
import { fc, test } from '@harness/test-utils/property';
import { describe, expect, it } from 'vitest';
import { truncationMarker } from '../src/index';
import { OutputCollector } from '../src/output';

const chunk = fc.tuple(fc.constantFrom<0 | 1>(0, 1), fc.uint8Array({ maxLength: 300 }));

describe('OutputCollector (head + tail ring, unit)', () => {
  it('keeps the first half of the ceiling and the last half, per stream', () => {
    const c = new OutputCollector(10);
    c.push(0, Buffer.from('abcdefgh'));
    c.push(1, Buffer.from('ERR'));
    c.push(0, Buffer.from('ijklmnop'));
    expect(c.exceeded).toBe(true);
    const out = c.result(0);
    const err = c.result(1);
    expect(out).toEqual({ text: `abcde${truncationMarker(6)}lmnop`, seen: 16, kept: 10 });
    expect(err).toEqual({ text: `${truncationMarker(3)}`, seen: 3, kept: 0 });
  });

  it('releases evicted chunks at once, so memory held stays within the ceiling', () => {
    const c = new OutputCollector(64 * 1024);
    const chunk = Buffer.alloc(4096, 120);
    for (let i = 0; i < 2000; i++) {
      c.push(i % 2 === 0 ? 0 : 1, chunk);
      expect(c.heldBytes).toBeLessThanOrEqual(64 * 1024);
    }
    expect(c.result(0).kept + c.result(1).kept).toBe(64 * 1024);
  });

  test.prop([fc.integer({ min: 0, max: 2000 }), fc.array(chunk, { maxLength: 40 })], {
    numRuns: fcRuns(300),
  })('never keeps more than the ceiling, and keeps everything when it fits', (ceiling, chunks) => {
    const c = new OutputCollector(ceiling);
    const all: [number[], number[]] = [[], []];
    for (const [fd, bytes] of chunks) {
      c.push(fd, Buffer.from(bytes));
      all[fd].push(...bytes);
    }
    const total = all[0].length + all[1].length;
    const results = [c.result(0), c.result(1)];
    expect(results[0]!.kept + results[1]!.kept).toBeLessThanOrEqual(ceiling);
    expect(c.exceeded).toBe(total > ceiling);
    results.forEach((r, fd) => {
      expect(r.seen).toBe(all[fd as 0 | 1].length);
      if (total <= ceiling) expect(r.text).toBe(Buffer.from(all[fd as 0 | 1]).toString('utf8'));
    });
  });

  test.prop(
    [
      fc.integer({ min: 2, max: 400 }),
      fc.array(fc.string({ unit: 'binary', maxLength: 60 }), { maxLength: 30 }),
    ],
    {
      numRuns: fcRuns(300),
    },
  )('cuts text only on character boundaries: head is a prefix, tail a suffix', (ceiling, parts) => {
    const c = new OutputCollector(ceiling);
    for (const part of parts) c.push(0, Buffer.from(part));
    const whole = parts.join('');
    const r = c.result(0);
    if (r.kept === r.seen) {
      expect(r.text).toBe(whole);
      return;
    }
    const marker = truncationMarker(r.seen - r.kept);
    const at = r.text.indexOf(marker);
    expect(at).toBeGreaterThanOrEqual(0);
    const head = r.text.slice(0, at);
    const tail = r.text.slice(at + marker.length);
    expect(whole.startsWith(head)).toBe(true);
    expect(whole.endsWith(tail)).toBe(true);
    expect(Buffer.byteLength(head) + Buffer.byteLength(tail)).toBe(r.kept);
    // At most 3 bytes of a split character are lost on each side.
    expect(r.kept).toBeGreaterThanOrEqual(Math.min(ceiling, r.seen) - 6);
  });
});
