import { expect } from 'chai';
import { type CsvField, chunks, parseCsv, planCsvImport } from '../admin/csv.ts';

describe('data dashboard: CSV import of objects (parsing and planning in the browser)', () => {
  it('parses quoted cells, doubled quotes, line breaks inside quotes, CRLF and a byte order mark', () => {
    const text = '\ufeffkey,title\r\na,"Hello, ""world"""\r\nb,"two\nlines"\nc,\n';
    expect(parseCsv(text)).to.deep.equal([
      ['key', 'title'],
      ['a', 'Hello, "world"'],
      ['b', 'two\nlines'],
      ['c', ''],
    ]);
    expect(parseCsv('a,b')).to.deep.equal([['a', 'b']]);
    expect(parseCsv('')).to.deep.equal([]);
  });

  it('turns cells into values of their field types and names what it cannot read', () => {
    const fields: CsvField[] = [
      { name: 'title', type: 'text' },
      { name: 'size', type: 'number' },
      { name: 'live', type: 'boolean' },
      { name: 'tags', type: 'array', of: 'text' },
      { name: 'sizes', type: 'array', of: 'number' },
      { name: 'meta', type: 'json' },
    ];
    const plan = planCsvImport({ fields }, [
      ['key', 'locale', 'title', 'size', 'live', 'tags', 'sizes', 'meta', 'unknown'],
      ['k1', 'de', 'T', '1.5', 'yes', 'a; b', '1;2', '{"x":1}', 'z'],
      ['', '', '', 'big', 'maybe', '', '', '', ''],
    ]);
    expect(plan.used).to.deep.equal(['key', 'locale', 'title', 'size', 'live', 'tags', 'sizes', 'meta']);
    expect(plan.ignored).to.deep.equal(['unknown']);
    expect(plan.rows).to.deep.equal([
      {
        key: 'k1',
        locale: 'de',
        attributes: { title: 'T', size: 1.5, live: true, tags: ['a', 'b'], sizes: [1, 2], meta: { x: 1 } },
      },
      { attributes: {} },
    ]);
    expect(plan.problems).to.deep.equal([
      'row 3, size: not a number',
      'row 3, live: not yes/no (true, false, yes, no, 1, 0)',
    ]);
  });

  it('splits rows into calls of at most 500 (the bulk route limit)', () => {
    const parts = chunks(Array.from({ length: 1001 }, (_, i) => i));
    expect(parts.map((p) => p.length)).to.deep.equal([500, 500, 1]);
  });
});
