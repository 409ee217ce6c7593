import { expect } from 'chai';
import { retryAfterMs } from '../../event-delivery/services/request.ts';
import { MAX_TRIES, nextTryAfterMs } from '../services/retry-schedule.ts';

describe('object events: retry schedule', () => {
  it('waits 1 min, 5 min, 30 min, 2 h, 12 h after tries 1-5 and gives up after the 6th', () => {
    expect([1, 2, 3, 4, 5].map((n) => nextTryAfterMs(n))).to.deep.equal([60_000, 300_000, 1_800_000, 7_200_000, 43_200_000]);
    expect(MAX_TRIES).to.equal(6);
    expect(nextTryAfterMs(6)).to.equal(null);
    expect(nextTryAfterMs(6, 1000)).to.equal(null);
  });

  it('Retry-After replaces the wait within 1 min .. 12 h', () => {
    expect(nextTryAfterMs(1, 90_000)).to.equal(90_000);
    expect(nextTryAfterMs(4, 0)).to.equal(60_000);
    expect(nextTryAfterMs(2, 10 * 86_400_000)).to.equal(43_200_000);
  });

  it('reads Retry-After as seconds or an HTTP date; anything else is ignored', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(retryAfterMs('120', now)).to.equal(120_000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:10:00 GMT', now)).to.equal(600_000);
    expect(retryAfterMs('Wed, 31 Dec 2025 00:00:00 GMT', now)).to.equal(0);
    expect(retryAfterMs('soon', now)).to.equal(undefined);
    expect(retryAfterMs('-5', now)).to.equal(undefined);
    expect(retryAfterMs(undefined, now)).to.equal(undefined);
  });
});
