import { expect } from 'chai';
import { MAX_TRIES, RETRY_WAITS_MS, retryAfterWithinBounds } from '../services/retry-schedule.ts';

describe('event delivery: retry schedule', () => {
  it('waits 1 min, 5 min, 30 min, 2 h, 12 h after tries 1-5 and gives up after the 6th', () => {
    expect([...RETRY_WAITS_MS]).to.deep.equal([60_000, 300_000, 1_800_000, 7_200_000, 43_200_000]);
    expect(MAX_TRIES).to.equal(6);
  });

  it('Retry-After is kept up to the last wait (12 h); the engine never tries sooner than the schedule', () => {
    expect(retryAfterWithinBounds(undefined)).to.equal(undefined);
    expect(retryAfterWithinBounds(90_000)).to.equal(90_000);
    expect(retryAfterWithinBounds(-5)).to.equal(0);
    expect(retryAfterWithinBounds(10 * 86_400_000)).to.equal(43_200_000);
  });
});
