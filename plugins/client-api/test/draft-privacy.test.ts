import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { LightMyRequestResponse } from 'fastify';
import { startClientKernel, type ClientKernel } from './helpers.ts';

/**
 * Drafts are never revealed to a client, and a write answer echoes only what the client may know. A
 * client with `data:write:<Class>` changes only drafts it created; every other row (a staff draft, a
 * published object, another client's draft) answers exactly like an id that does not exist.
 */
describe('client-api: drafts stay hidden from writing clients', () => {
  let k: ClientKernel;
  let cls: string;
  let writer: string;
  let otherWriter: string;
  let maker: string;
  let withMaker: string;
  const staff: Record<string, string> = {};

  before(async () => {
    k = await startClientKernel({ env: { CLIENT_DEFAULT_REQUESTS_PER_MINUTE: '100000' } });
    cls = await k.createClass([
      { name: 'title', type: 'text', localized: true },
      { name: 'notes', type: 'text', localized: true },
      { name: 'sku', type: 'text', unique: true },
      { name: 'brand', type: 'text' },
    ]);
    maker = await k.createClass([{ name: 'name', type: 'text' }]);
    withMaker = await k.createClass([
      { name: 'title', type: 'text' },
      { name: 'maker', type: 'relation', relation: { class: maker } },
      { name: 'others', type: 'array', of: 'relation', relation: { class: maker } },
    ]);
    staff.draft = await k.createObject(cls, { title: 'Launch plan', notes: 'embargoed', sku: 'S-1' }, false, 'launch');
    staff.published = await k.createObject(cls, { title: 'Public', sku: 'S-2' }, true, 'public-one');
    writer = (
      await k.createClient({
        scopes: [`data:read:${cls}`, `data:write:${cls}`, `data:write:${maker}`, `data:write:${withMaker}`],
      })
    ).key;
    otherWriter = (await k.createClient({ scopes: [`data:write:${cls}`] })).key;
  });
  after(() => k?.close());

  const patch = (id: string, payload: unknown, key = writer) =>
    k.asClient(key, 'PATCH', `/client/v1/data/${cls}/${id}`, { payload: payload as object });
  const create = (payload: unknown, key = writer) =>
    k.asClient(key, 'POST', `/client/v1/data/${cls}`, { payload: payload as object });
  /** What a client sees of an answer: status, content type and body. */
  const seen = (res: LightMyRequestResponse) => ({
    status: res.statusCode,
    type: res.headers['content-type'],
    body: res.body,
  });

  it('a PATCH of a row the client did not create answers like a missing id, whatever the body, and changes nothing', async () => {
    const missing = seen(await patch(randomUUID(), {}));
    expect(missing).to.deep.equal({ status: 404, type: 'text/plain; charset=utf-8', body: 'Not found' });
    const own = (await create({ attributes: { title: 'Mine' } }, otherWriter)).json().id;
    for (const id of [staff.draft, staff.published, own]) {
      for (const body of [{}, { attributes: { title: 'x' } }, { attributes: { nosuchfield: 1 } }, { key: 'a b' }]) {
        expect(seen(await patch(id, body)), `${id} ${JSON.stringify(body)}`).to.deep.equal(missing);
      }
    }
    const rows = await k.t.db('data_objects').whereIn('id', [staff.draft, staff.published, own]);
    expect(rows.map((r) => r.attributes.title).sort()).to.deep.equal(['Launch plan', 'Mine', 'Public']);
  });

  it('a write answer carries the identity and the values the request wrote, never other values of the draft', async () => {
    const created = await create({ key: 'mine-1', attributes: { title: 'Mine', notes: 'first' } });
    expect(created.statusCode, created.body).to.equal(201);
    const id = created.json().id;
    expect(created.json()).to.include({ key: 'mine-1', published: false, className: cls });
    expect(created.json().attributes).to.deep.equal({ title: 'Mine', notes: 'first' });
    // Staff edit the client's draft (a moderator fills a field in).
    await k.asAdmin('PATCH', `/data-objects/${id}`, { attributes: { notes: 'reviewed by staff', brand: 'Acme' } });
    const noOp = await patch(id, {});
    expect(noOp.statusCode, noOp.body).to.equal(200);
    expect(noOp.json().attributes).to.deep.equal({});
    expect(noOp.json()).to.not.have.property('key');
    const titled = await patch(id, { attributes: { title: 'Mine, again' } });
    expect(titled.json().attributes).to.deep.equal({ title: 'Mine, again' });
    expect(titled.body).to.not.include('reviewed by staff');
    expect(titled.body).to.not.include('Acme');
    // Reads never show a draft, its own included.
    expect((await k.asClient(writer, 'GET', `/client/v1/data/${cls}/${id}`)).statusCode).to.equal(404);
    const list = await k.asClient(writer, 'GET', `/client/v1/data/${cls}?limit=100`);
    expect(list.json().objects.map((o: { id: string }) => o.id)).to.deep.equal([staff.published]);
    expect(list.body).to.not.include('Launch plan');
  });

  it('a taken key or unique value answers one 409, the same for a draft and a published holder, naming neither field nor object', async () => {
    const answers = [
      await create({ key: 'launch', attributes: { title: 'x' } }), // a staff draft's key
      await create({ key: 'public-one', attributes: { title: 'x' } }), // a published object's key
      await create({ attributes: { title: 'x', sku: 'S-1' } }), // a staff draft's unique value
      await create({ attributes: { title: 'x', sku: 'S-2' } }), // a published object's unique value
    ].map(seen);
    for (const answer of answers) {
      expect(answer.status).to.equal(409);
      expect(JSON.parse(answer.body)).to.include({ code: 'UNIQUE_VIOLATION' });
      expect(JSON.parse(answer.body)).to.not.have.property('field');
      expect(answer.body).to.not.include(staff.draft).and.not.include('launch');
    }
    const bodies = answers.map((a) => {
      const { requestId: _r, ...rest } = JSON.parse(a.body);
      return rest;
    });
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).to.equal(1);
    // The same on a PATCH of the client's own draft.
    const id = (await create({ attributes: { title: 'y' } })).json().id;
    const taken = await patch(id, { key: 'launch' });
    expect(taken.statusCode).to.equal(409);
    const { requestId: _r, ...rest } = taken.json();
    expect(rest).to.deep.equal(bodies[0]);
  });

  it("a new language joins only a record whose every row is the client's draft; other groups answer like unknown ones", async () => {
    const group = async (id: string) => (await k.t.db('data_objects').where({ id }).first()).translation_group_id;
    const unknown = seen(await create({ locale: 'de', translationGroupId: randomUUID(), attributes: { title: 'x' } }));
    expect(unknown.status).to.equal(400);
    for (const id of [staff.draft, staff.published]) {
      const res = await create({ locale: 'de', translationGroupId: await group(id), attributes: { title: 'x' } });
      const { requestId: _a, ...got } = JSON.parse(res.body);
      const { requestId: _b, ...expected } = JSON.parse(unknown.body);
      expect({ status: res.statusCode, body: got }).to.deep.equal({ status: 400, body: expected });
    }
    expect(await k.t.db('data_objects').where({ locale: 'de' }).count({ n: '*' }).first()).to.deep.equal({ n: 0 });

    // Its own record: the new language gets the shared values, but the answer shows only what was sent.
    const mine = (await create({ attributes: { title: 'Mine', brand: 'Shared brand' } })).json();
    const de = await create({
      locale: 'de',
      translationGroupId: mine.translationGroupId,
      attributes: { title: 'Meins' },
    });
    expect(de.statusCode, de.body).to.equal(201);
    expect(de.json().attributes).to.deep.equal({ title: 'Meins' });
    expect((await k.t.db('data_objects').where({ id: de.json().id }).first()).attributes.brand).to.equal(
      'Shared brand',
    );
  });

  it('shared fields are not synced into a language row staff added; the write is refused with nothing changed', async () => {
    const mine = (await create({ attributes: { title: 'Mine', brand: 'A' } })).json();
    const fr = await k.asAdmin('POST', '/data-objects', {
      className: cls,
      locale: 'fr',
      translationGroupId: mine.translationGroupId,
      attributes: { title: 'Le mien' },
    });
    expect(fr.statusCode, fr.body).to.equal(201);
    const shared = await patch(mine.id, { attributes: { brand: 'B' } });
    expect(shared.statusCode).to.equal(409);
    expect(shared.json().code).to.equal('SHARED_FIELDS_LOCKED');
    const rows = await k.t.db('data_objects').where({ translation_group_id: mine.translationGroupId });
    expect(rows.map((r) => r.attributes.brand)).to.deep.equal(['A', 'A']);
    // A field of its own language still changes.
    expect((await patch(mine.id, { attributes: { title: 'Still mine' } })).statusCode).to.equal(200);
  });

  it('a relation the client sends may name a published object or its own draft; a draft of someone else answers like a missing id', async () => {
    const staffDraft = await k.createObject(maker, { name: 'Secret maker' }, false);
    const published = await k.createObject(maker, { name: 'Known maker' }, true);
    const own = (
      await k.asClient(writer, 'POST', `/client/v1/data/${maker}`, { payload: { attributes: { name: 'Mine' } } })
    ).json().id;
    const send = (attributes: Record<string, unknown>) =>
      k.asClient(writer, 'POST', `/client/v1/data/${withMaker}`, { payload: { attributes } });
    const answer = async (attributes: Record<string, unknown>, id: string) => {
      const res = await send(attributes);
      const { requestId: _r, ...body } = res.json();
      return { status: res.statusCode, body: JSON.stringify(body).replaceAll(id, '<id>') };
    };
    const missing = randomUUID();
    for (const [field, value] of [
      ['maker', (id: string) => id],
      ['others', (id: string) => [published, id]],
    ] as const) {
      const none = await answer({ [field]: value(missing) }, missing);
      expect(none.status, field).to.equal(400);
      expect(await answer({ [field]: value(staffDraft) }, staffDraft), field).to.deep.equal(none);
    }
    for (const id of [published, own]) expect((await send({ maker: id })).statusCode).to.equal(201);
    // A relation staff set on the client's own draft does not block the client's later writes.
    const mine = (await send({ title: 'a' })).json().id;
    await k.asAdmin('PATCH', `/data-objects/${mine}`, { attributes: { maker: staffDraft } });
    const later = await k.asClient(writer, 'PATCH', `/client/v1/data/${withMaker}/${mine}`, {
      payload: { attributes: { title: 'b' } },
    });
    expect(later.statusCode, later.body).to.equal(200);
    expect(later.body).to.not.include(staffDraft);
  });

  it('reads never tell a draft from a missing id: get, filters, order and hasMore see published objects only', async () => {
    const get = async (id: string) => seen(await k.asClient(writer, 'GET', `/client/v1/data/${cls}/${id}`));
    expect(await get(staff.draft)).to.deep.equal(await get(randomUUID()));
    const list = async (query: string) => {
      const res = await k.asClient(writer, 'GET', `/client/v1/data/${cls}?${query}`);
      expect(res.statusCode, res.body).to.equal(200);
      return res.json();
    };
    expect((await list('filter=title:eq:Launch%20plan')).objects).to.deep.equal([]);
    expect((await list('filter=sku:eq:S-1')).objects).to.deep.equal([]);
    expect((await list('filter=notes:exists:true')).objects).to.deep.equal([]);
    // Drafts sort among the published ones in no order and count in no page.
    const page = await list('limit=1&orderBy=title&dir=asc');
    expect(page).to.deep.include({ hasMore: false });
    expect(page.objects.map((o: { id: string }) => o.id)).to.deep.equal([staff.published]);
  });
});
