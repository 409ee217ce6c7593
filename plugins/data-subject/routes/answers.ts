import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';

/*
 * The answers of the data-subject routes. Each is serialised by its schema, so what a source hands
 * over beyond the documented item (a whole record, a file's storage place) never reaches a client.
 */

const Counts = Type.Record(Type.String(), Type.Integer());

const Item = Type.Object({
  id: Type.String(),
  at: Type.String({ description: 'ISO date of the record (created or updated)' }),
  label: Type.String(),
  matched: Type.Array(Type.String(), { description: 'which fields held the identifier' }),
  files: Type.Optional(Type.Array(Type.String(), { description: 'files the record refers to' })),
  class: Type.Optional(Type.String()),
  key: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  locale: Type.Optional(Type.String()),
});

const NotSearched = Type.Array(Type.Object({ kind: Type.String(), plugin: Type.String(), reason: Type.String() }), {
  description: 'kinds of records that were not looked at (their plugin is not loaded)',
});

export const SearchAnswer = Type.Object({
  counts: Counts,
  results: Type.Record(Type.String(), Type.Array(Item), { description: 'at most `limit` items per kind' }),
  notSearched: NotSearched,
});

export const EraseAnswer = Type.Object({
  dryRun: Type.Boolean(),
  erased: Counts,
  kept: Type.Array(
    Type.Object({ kind: Type.String(), id: Type.String(), label: Type.String(), reason: Type.String() }),
  ),
  reported: Type.Array(
    Type.Object({ kind: Type.String(), id: Type.String(), label: Type.String(), reason: Type.String() }),
    { description: 'found but never erased by rule, each with why (staff uploads, files used elsewhere)' },
  ),
  reportedOnly: Counts,
  sharedFiles: Type.Array(Type.String(), {
    description: "the person's files something else uses too (a page, another object): left in place",
  }),
  complete: Type.Boolean({ description: 'true when nothing stayed' }),
  notSearched: NotSearched,
  notTouched: Type.Array(Type.String()),
});

/** The export: one JSON document, streamed (never serialised by the schema). */
export const ExportAnswer = {
  description: 'a JSON document `{ generatedAt, notSearched, records: { <kind>: [whole records] } }` as a download',
  content: {
    'application/json': {
      schema: Type.Unsafe<Readable>(
        Type.Object({
          generatedAt: Type.String({ format: 'date-time' }),
          notSearched: NotSearched,
          records: Type.Record(Type.String(), Type.Array(Type.Unknown())),
        }),
      ),
    },
  },
};
