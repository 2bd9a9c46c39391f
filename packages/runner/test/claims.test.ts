// Deliveries of one body are handled one at a time: a second waits for the first's outcome.
import { describe, expect, it } from 'vitest';
import { BodyClaims } from '../src/claims';

describe('claims on a body being handled', () => {
  it('lets one delivery of a body in at a time, in arrival order, and never holds up another body', async () => {
    const claims = new BodyClaims();
    const order: string[] = [];
    const releaseFirst = await claims.claim('gh\0a');
    const waiters = ['second', 'third'].map((name) =>
      claims.claim('gh\0a').then((release) => {
        order.push(name);
        release();
      }),
    );
    const other = await claims.claim('gh\0b');
    order.push('other body');
    other();
    order.push('first done');
    releaseFirst();
    await Promise.all(waiters);
    expect(order).toEqual(['other body', 'first done', 'second', 'third']);
  });
});
