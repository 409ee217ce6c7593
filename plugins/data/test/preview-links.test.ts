import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { ManualClock } from '../../../kernel/clock.ts';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { seedClass, seedObject } from './seed-rows.ts';

type User = TestUser;
const DAY_MS = 24 * 3600_000;

describe('data: preview links', () => {
  let t: TestKernel;
  let clock = new ManualClock();
  let publisher: User;
  let editor: User;
  let classId: string;
  let unknownBody: Record<string, unknown>;
  let className: string;

  before(async () => {
    // The kernel reads whichever clock the current case made, so no case sees another's advances.
    t = await startTestKernel({ plugins: ['data'], clock: { now: () => clock.now() } });
    publisher = await t.createUser({ permissions: ['objects:read', 'objects:publish'] });
    editor = await t.createUser({ roles: ['editor'] });
    ({ id: classId, name: className } = await seedClass(t.db));
    unknownBody = deadBody(await view('x'.repeat(43)));
  });
  beforeEach(() => {
    clock = new ManualClock();
  });
  after(() => t.close());

  const createLink = (objectId: string, body?: object, cookie = publisher.cookie) =>
    t.inject({
      method: 'POST',
      url: `/data-objects/${objectId}/preview-link`,
      headers: { cookie },
      ...(body ? { payload: body } : {}),
    });
  const view = (token: string) => t.inject({ method: 'GET', url: `/preview/objects/${token}` });
  const listLinks = (objectId: string, cookie = publisher.cookie) =>
    t.inject({ method: 'GET', url: `/data-objects/${objectId}/preview-links`, headers: { cookie } });
  const remove = (token: string, permanent = false, cookie = publisher.cookie) =>
    t.inject({
      method: 'DELETE',
      url: `/data-objects/preview-links/${token}${permanent ? '?permanent=true' : ''}`,
      headers: { cookie },
    });

  /** Every dead token answers exactly this (the request id aside). */
  const deadBody = (res: { statusCode: number; json(): Record<string, unknown> }) => {
    const { requestId, ...rest } = res.json();
    expect(requestId).to.be.a('string');
    return { status: res.statusCode, ...rest };
  };

  it('creating needs objects:publish (403 for an editor, 401 without a session) and a known object', async () => {
    const obj = await seedObject(t.db, classId);
    expect((await createLink(obj.id, {}, editor.cookie)).statusCode).to.equal(403);
    expect(
      (await t.inject({ method: 'POST', url: `/data-objects/${obj.id}/preview-link`, payload: {} })).statusCode,
    ).to.equal(401);
    expect((await createLink(randomUUID(), {})).statusCode).to.equal(404);
    expect(await t.db('data_preview_links').where({ object_id: obj.id })).to.have.length(0);
  });

  it('validates expiresInDays (1..365)', async () => {
    const obj = await seedObject(t.db, classId);
    for (const expiresInDays of [0, 366, 1.5, 'soon']) {
      const res = await createLink(obj.id, { expiresInDays });
      expect(res.statusCode, String(expiresInDays)).to.equal(400);
      expect(res.json().field).to.equal('expiresInDays');
    }
  });

  it('creates a 256-bit token that shows the unpublished object and counts views', async () => {
    const obj = await seedObject(t.db, classId, { published: false, title: 'secret draft' });
    const res = await createLink(obj.id);
    expect(res.statusCode, res.body).to.equal(201);
    const { token, url, expiresAt } = res.json();
    expect(token).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url')).to.have.length(32);
    expect(url).to.equal(`/preview/objects/${token}`);
    expect(new Date(expiresAt).getTime()).to.be.closeTo(clock.now().getTime() + 7 * DAY_MS, 5_000);

    const first = await view(token);
    expect(first.statusCode).to.equal(200);
    expect(first.headers['cache-control']).to.equal('no-store');
    expect(first.json()).to.deep.include({ id: obj.id, published: false, class: { id: classId, name: className } });
    expect(first.json().attributes).to.deep.equal({ title: 'secret draft' });
    await view(token);
    await Promise.all([view(token), view(token), view(token)]);

    const list = await listLinks(obj.id);
    expect(list.statusCode).to.equal(200);
    expect(list.json()).to.have.length(1);
    expect(list.json()[0]).to.deep.include({
      token,
      url,
      objectId: obj.id,
      state: 'active',
      revoked: false,
      viewCount: 5,
      expiresAt,
    });
    expect(list.json()[0].lastViewedAt).to.be.a('string');
    expect(list.json()[0].createdBy).to.equal(publisher.id);
    expect((await listLinks(obj.id, editor.cookie)).statusCode).to.equal(403);
  });

  it('revoking turns the link into the unknown-token 404; views stop counting', async () => {
    const obj = await seedObject(t.db, classId);
    const { token } = (await createLink(obj.id, { expiresInDays: 30 })).json();
    expect((await view(token)).statusCode).to.equal(200);
    expect((await remove(token, false, editor.cookie)).statusCode).to.equal(403);
    expect((await remove(token)).statusCode).to.equal(204);
    expect(deadBody(await view(token))).to.deep.equal(unknownBody);
    expect(unknownBody).to.include({ status: 404, code: 'PREVIEW_NOT_FOUND' });
    const [link] = (await listLinks(obj.id)).json();
    expect(link).to.include({ state: 'revoked', revoked: true, viewCount: 1 });
    expect(link.revokedAt).to.be.a('string');
    // Revoking again changes nothing.
    expect((await remove(token)).statusCode).to.equal(204);
    expect((await listLinks(obj.id)).json()[0].revokedAt).to.equal(link.revokedAt);
  });

  it('expires after expiresInDays by the clock', async () => {
    const obj = await seedObject(t.db, classId);
    const { token } = (await createLink(obj.id, { expiresInDays: 1 })).json();
    clock.advance(DAY_MS - 60_000);
    expect((await view(token)).statusCode).to.equal(200);
    clock.advance(120_000);
    expect(deadBody(await view(token))).to.deep.equal(unknownBody);
    expect((await listLinks(obj.id)).json()[0]).to.include({ state: 'expired', revoked: false, viewCount: 1 });
  });

  it('permanent removal: refused for an active link, allowed for revoked and expired ones', async () => {
    const obj = await seedObject(t.db, classId);
    const active = (await createLink(obj.id, { expiresInDays: 10 })).json().token;
    const toRevoke = (await createLink(obj.id, { expiresInDays: 10 })).json().token;
    const toExpire = (await createLink(obj.id, { expiresInDays: 2 })).json().token;

    const refused = await remove(active, true);
    expect(refused.statusCode).to.equal(409);
    expect(refused.json().code).to.equal('PREVIEW_LINK_ACTIVE');
    expect((await view(active)).statusCode).to.equal(200);

    expect((await remove(toRevoke)).statusCode).to.equal(204);
    expect((await remove(toRevoke, true)).statusCode).to.equal(204);
    clock.advance(3 * DAY_MS);
    expect((await remove(toExpire, true)).statusCode).to.equal(204);

    const left = (await listLinks(obj.id)).json();
    expect(left.map((l: { token: string }) => l.token)).to.deep.equal([active]);
    expect(left[0].state).to.equal('active');
    for (const token of [toRevoke, toExpire]) {
      expect(deadBody(await view(token))).to.deep.equal(unknownBody);
      expect((await remove(token, true)).statusCode).to.equal(404);
    }
    expect((await remove('no-such-token')).statusCode).to.equal(404);
  });

  it('answers the same 404 for unknown and malformed tokens, without a session', async () => {
    for (const token of ['abc', 'A'.repeat(43), 'z'.repeat(100), 'with.dots~and%20spaces']) {
      expect(deadBody(await view(token))).to.deep.equal(unknownBody);
    }
  });

  it('a link goes with its object', async () => {
    const obj = await seedObject(t.db, classId);
    const { token } = (await createLink(obj.id)).json();
    await t.db('data_objects').where({ id: obj.id }).delete();
    expect(deadBody(await view(token))).to.deep.equal(unknownBody);
    expect((await listLinks(obj.id)).statusCode).to.equal(404);
  });
});
