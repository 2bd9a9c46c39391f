// until: the one wait of the tests, for a condition, with a deadline that names what it waited for.
import { describe, expect, it } from 'vitest';
import { until } from '../src/until';

describe('until', () => {
  it('resolves with the first truthy value a check returns, asking again until then', async () => {
    let asked = 0;
    expect(
      await until(() => (++asked < 3 ? undefined : { asked }), 'the third answer', { everyMs: 1 }),
    ).toEqual({
      asked: 3,
    });
  });

  it('awaits an async check', async () => {
    let asked = 0;
    expect(await until(async () => ++asked === 2, 'the second answer', { everyMs: 1 })).toBe(true);
  });

  it('rejects at the deadline naming what it waited for, with the state a function gives then', async () => {
    let seen = 0;
    await expect(
      until(
        () => {
          seen++;
          return false;
        },
        () => `a count above ten; it is ${seen}`,
        { timeoutMs: 30, everyMs: 5 },
      ),
    ).rejects.toThrow(/^still waiting after 30 ms for a count above ten; it is \d+$/);
    await expect(until(() => 0, 'nothing', 20)).rejects.toThrow('still waiting after 20 ms for nothing');
  });

  it('ends the wait at once when the check throws', async () => {
    let asked = 0;
    await expect(
      until(
        () => {
          asked++;
          throw new Error('broken check');
        },
        'never',
        { timeoutMs: 10_000 },
      ),
    ).rejects.toThrow('broken check');
    expect(asked).toBe(1);
  });
});
