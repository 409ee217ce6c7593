import { expect } from 'chai';
import { MAX_TRIES, nextTryAfterMs } from '../services/retry-schedule.ts';

describe('object events: retry schedule', () => {
  it('waits 1 min, 5 min, 30 min, 2 h, 12 h after tries 1-5 and gives up after the 6th', () => {
    expect([1, 2, 3, 4, 5].map((n) => nextTryAfterMs(n))).to.deep.equal([
      60_000, 300_000, 1_800_000, 7_200_000, 43_200_000,
    ]);
    expect(MAX_TRIES).to.equal(6);
    expect(nextTryAfterMs(6)).to.equal(null);
    expect(nextTryAfterMs(6, 1000)).to.equal(null);
  });

  it('Retry-After replaces the wait within 1 min .. 12 h', () => {
    expect(nextTryAfterMs(1, 90_000)).to.equal(90_000);
    expect(nextTryAfterMs(4, 0)).to.equal(60_000);
    expect(nextTryAfterMs(2, 10 * 86_400_000)).to.equal(43_200_000);
  });
});
