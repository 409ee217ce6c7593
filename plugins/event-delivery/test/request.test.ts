import { expect } from 'chai';
import { retryAfterMs } from '../services/request.ts';
import { cmsSignature, standardWebhooksKey } from '../services/signature.ts';

describe('event-delivery: request parts', () => {
  it('reads Retry-After as seconds or an HTTP date; anything else is ignored', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(retryAfterMs('120', now)).to.equal(120_000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:10:00 GMT', now)).to.equal(600_000);
    expect(retryAfterMs('Wed, 31 Dec 2025 00:00:00 GMT', now)).to.equal(0);
    expect(retryAfterMs('soon', now)).to.equal(undefined);
    expect(retryAfterMs('-5', now)).to.equal(undefined);
    expect(retryAfterMs(undefined, now)).to.equal(undefined);
  });

  it('signs with the secret as given; a whsec_ secret gives its base64 bytes as the Standard Webhooks key', () => {
    expect(cmsSignature('k', 1, '{}')).to.match(/^sha256=[0-9a-f]{64}$/);
    expect(standardWebhooksKey('whsec_' + Buffer.from('raw key').toString('base64')).toString()).to.equal('raw key');
    expect(standardWebhooksKey('plain').toString()).to.equal('plain');
  });
});
