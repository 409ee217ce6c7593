import { expect } from 'chai';
import type { TestKernel, TestUser } from '../../../test/helpers/kernel.ts';

/**
 * `POST /pwa/send` as a client uses it: 202 with the send's id, then the outcome read back at
 * `GET /pwa/send/:id` once the background job has run (`jobs.settled`).
 */
export async function sendAndWait(t: TestKernel, user: TestUser, message: Record<string, unknown>) {
  const queued = await t.call('POST', '/pwa/send', user, message);
  expect(queued.statusCode, queued.body).to.equal(202);
  const { id, outcome } = queued.json();
  expect(queued.headers.location).to.equal(`/pwa/send/${id}`);
  expect(outcome).to.equal(`/pwa/send/${id}`);
  await t.kernel.resolve('jobs').settled('push.sends');
  const read = await t.call('GET', outcome, user);
  expect(read.statusCode, read.body).to.equal(200);
  return read.json();
}

/** The counts of an ended send, as the tests compare them. */
export const counts = (send: { sent: number; removed: number; failed: number }) => ({
  sent: send.sent,
  removed: send.removed,
  failed: send.failed,
});
