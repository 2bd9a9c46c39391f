// The small bounds: the stderr ring, the UTF-8 cut, the restart backoff.
import { describe, expect, it } from 'vitest';
import { backoffMs } from '../src/index';
import { LogRing } from '../src/logs';
import { cutUtf8 } from '../src/result-text';

describe('the bounds of a server client', () => {
  it('keeps only the last logBytes bytes of stderr, starting at a whole character', () => {
    const ring = new LogRing(10);
    ring.write(Buffer.from('0123456789abcdef'));
    expect(ring.text()).toBe('6789abcdef');
    ring.write(Buffer.from('ééé'));
    expect(ring.text()).toBe('cdefééé');
    const small = new LogRing(5);
    small.write(Buffer.from('aééé'));
    // The last 5 bytes begin inside the first é: that half is dropped.
    expect(small.text()).toBe('éé');
    small.write('one line');
    expect(small.tail(1)).toBe('line');
  });

  it('counts the writes it takes, so a reader that kept a copy knows whether the logs changed', () => {
    const ring = new LogRing(10);
    expect(ring.version).toBe(0);
    ring.write(Buffer.from('one'));
    ring.write(Buffer.alloc(0));
    expect(ring.version).toBe(1);
    ring.write('two');
    expect(ring.version).toBe(2);
  });

  it('cuts text at a byte bound without splitting a character [SV-15]', () => {
    expect(cutUtf8('aé', 2)).toEqual({ text: 'a', cut: true });
    expect(cutUtf8('aé', 3)).toEqual({ text: 'aé', cut: false });
    expect(cutUtf8('€€', 4)).toEqual({ text: '€', cut: true });
    expect(cutUtf8('abc', 0)).toEqual({ text: '', cut: true });
  });

  it('waits 0.5 s, 1 s, 2 s … at most 30 s between start attempts after failures in a row', () => {
    expect([1, 2, 3, 4, 7, 20].map(backoffMs)).toEqual([500, 1_000, 2_000, 4_000, 30_000, 30_000]);
    expect(backoffMs(0)).toBe(0);
  });
});
