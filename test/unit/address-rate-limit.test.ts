import { expect } from 'chai';
import { AddressRateLimit } from '../../kernel/address-rate-limit.ts';

describe('AddressRateLimit (per-address public limits)', () => {
  it('allows the limit per address and minute, then 429 with the rest of the window as Retry-After', () => {
    let now = 60_000 * 100 + 15_000;
    const limit = new AddressRateLimit(2, () => now, 'Too many; later');
    limit.hit('a');
    limit.hit('a');
    limit.hit('b');
    let refused: { statusCode?: number; message?: string; headers?: Record<string, string> } = {};
    try {
      limit.hit('a');
    } catch (err) {
      refused = err as typeof refused;
    }
    expect(refused).to.include({ statusCode: 429, message: 'Too many; later' });
    expect(refused.headers?.['retry-after']).to.equal('45');
    now += 45_000; // the next window
    expect(() => limit.hit('a')).not.to.throw();
  });
});
