import { expect } from 'chai';
import { Type } from '@sinclair/typebox';
import { conflict } from '../../kernel/errors.ts';
import { definePlugin, type PluginManifest } from '../../kernel/plugin.ts';
import type { RecordChange } from '../../kernel/record-hooks.ts';
import { startTestKernel, type TestKernel } from '../helpers/kernel.ts';
import { ANY_JSON_ANSWER } from '../helpers/any-answer.ts';

interface Seen {
  change: RecordChange;
  rowInTransaction: boolean;
  rowOutside: boolean;
}

// A writer announcing `note` changes in its transaction, and a subscriber plugin that stores a row of
// its own per change or vetoes it.
const writer = definePlugin({
  id: 'test-note-writer',
  processes: ['core-api'],
  needs: ['db', 'recordHooks'],
  routes(app, deps) {
    app.post(
      '/t/notes',
      { config: { public: true }, schema: { response: ANY_JSON_ANSWER, body: Type.Object({ text: Type.String() }) } },
      async (request, reply) => {
        const id = await deps.db.transaction(async (trx) => {
          const [row] = await trx('t_notes').insert({ text: request.body.text }).returning('id');
          await deps.recordHooks.announce(trx, {
            recordType: 'note',
            recordId: String(row.id),
            kind: 'created',
            actor: { type: 'user', id: 'u-1' },
            data: { text: request.body.text },
          });
          return row.id as number;
        });
        return reply.code(201).send({ id });
      },
    );
  },
}) as PluginManifest;

function subscriberPlugin(seen: Seen[]): PluginManifest {
  return definePlugin({
    id: 'test-note-subscriber',
    processes: ['core-api'],
    needs: ['db', 'recordHooks'],
    onStart(deps) {
      deps.recordHooks.subscribe('note', async (change, trx) => {
        const id = Number(change.recordId);
        seen.push({
          change,
          rowInTransaction: Boolean(await trx('t_notes').where({ id }).first()),
          rowOutside: Boolean(await deps.db('t_notes').where({ id }).first()),
        });
        await trx('t_note_log').insert({ note_id: id, kind: change.kind });
      });
      // A second subscriber that may veto after the first one stored its row.
      deps.recordHooks.subscribe('*', (change) => {
        if (change.data?.text === 'veto with 409') throw conflict('this note is refused', 'NOTE_REFUSED');
        if (change.data?.text === 'crash') throw new Error('subscriber crashed');
      });
    },
  }) as PluginManifest;
}

describe('record-change hooks share the write transaction', () => {
  let t: TestKernel;
  const seen: Seen[] = [];
  const post = (text: string) => t.inject({ method: 'POST', url: '/t/notes', payload: { text } });
  const notes = async () => (await t.db('t_notes').orderBy('id').pluck('text')) as string[];
  const log = async () => t.db('t_note_log').orderBy('note_id').select('note_id', 'kind');

  before(async () => {
    t = await startTestKernel({ plugins: [], extraPlugins: [writer, subscriberPlugin(seen)] });
    await t.db.schema.createTable('t_notes', (tb) => {
      tb.increments('id');
      tb.text('text').notNullable();
    });
    await t.db.schema.createTable('t_note_log', (tb) => {
      tb.integer('note_id').notNullable();
      tb.text('kind').notNullable();
    });
  });
  // Each case starts with no note, no log row and nothing seen.
  beforeEach(async () => {
    await t.db.raw('TRUNCATE t_notes, t_note_log RESTART IDENTITY');
    seen.length = 0;
  });
  after(() => t.close());

  it('runs subscribers inside the transaction: both rows commit together', async () => {
    const res = await post('hello');
    expect(res.statusCode).to.equal(201);
    const { id } = res.json();
    expect(await notes()).to.deep.equal(['hello']);
    expect(await log()).to.deep.equal([{ note_id: id, kind: 'created' }]);
    expect(seen).to.have.length(1);
    expect(seen[0].change).to.deep.include({ recordType: 'note', recordId: String(id), kind: 'created' });
    // The subscriber saw the new row through the transaction while it was not yet visible outside.
    expect(seen[0].rowInTransaction).to.equal(true);
    expect(seen[0].rowOutside).to.equal(false);
  });

  it('fails the write with the subscriber HttpError and leaves no row', async () => {
    const res = await post('veto with 409');
    expect(res.statusCode).to.equal(409);
    expect(res.json()).to.include({ code: 'NOTE_REFUSED' });
    // The first subscriber ran and stored its row; that row went with the rollback.
    expect(seen).to.have.length(1);
    expect(await notes()).to.deep.equal([]);
    expect(await log()).to.deep.equal([]);
  });

  it('fails the write with a 500 when a subscriber throws and leaves no row', async () => {
    const res = await post('crash');
    expect(res.statusCode).to.equal(500);
    expect(res.json().code).to.equal('INTERNAL');
    expect(seen).to.have.length(1);
    expect(await notes()).to.deep.equal([]);
    expect(await log()).to.deep.equal([]);
  });

  it('commits again after a veto', async () => {
    expect((await post('veto with 409')).statusCode).to.equal(409);
    const res = await post('again');
    expect(res.statusCode).to.equal(201);
    expect(await notes()).to.deep.equal(['again']);
    expect(await log()).to.deep.equal([{ note_id: res.json().id, kind: 'created' }]);
  });
});
