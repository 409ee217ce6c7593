import { startTestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import pageFixture from './page-fixture/index.ts';

/**
 * A kernel with the data and search plugins plus the `page` fixture plugin (search/test/page-fixture),
 * a publisher (objects:read, objects:write, objects:publish), a reader (objects:read), an
 * administrator and a signed-in user without keys.
 */
export async function startSearchKernel(env: Record<string, string> = {}) {
  const t = await startTestKernel({ plugins: ['data', 'search'], extraPlugins: [pageFixture], env });
  const admin = await t.admin();
  const { publisher, reader, nobody } = await t.users({
    publisher: ['objects:read', 'objects:write', 'objects:publish'],
    reader: ['objects:read'],
    nobody: [],
  });

  const call = t.call;

  let n = 0;
  const createClass = async (fields: unknown[], label?: string): Promise<{ id: string; name: string }> => {
    const name = `cls_${Date.now().toString(36)}_${n++}`;
    const res = await call('POST', '/data-classes', admin, { name, label: label ?? name, fields });
    if (res.statusCode !== 201) throw new Error(`class create failed: ${res.body}`);
    return { id: res.json().id, name };
  };
  const createObject = async (body: Record<string, unknown>): Promise<{ id: string }> => {
    const res = await call('POST', '/data-objects', publisher, body);
    if (res.statusCode !== 201) throw new Error(`object create failed: ${res.body}`);
    return res.json();
  };
  const createPage = async (body: Record<string, unknown>): Promise<{ id: string }> => {
    const res = await call('POST', '/test-pages', publisher, body);
    if (res.statusCode !== 201) throw new Error(`page create failed: ${res.body}`);
    return res.json();
  };
  const qs = (params: Record<string, string | number | boolean>) =>
    new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();
  /** GET /public/search; returns the parsed answer after checking the status. */
  const publicSearch = async (params: Record<string, string | number | boolean>) => {
    const res = await call('GET', `/public/search?${qs(params)}`, null);
    if (res.statusCode !== 200) throw new Error(`public search answered ${res.statusCode}: ${res.body}`);
    return res.json() as { results: Array<Record<string, unknown>>; hasMore: boolean };
  };
  const editorSearch = async (params: Record<string, string | number | boolean>, user: TestUser = reader) => {
    const res = await call('GET', `/cms-one/search?${qs(params)}`, user);
    if (res.statusCode !== 200) throw new Error(`editor search answered ${res.statusCode}: ${res.body}`);
    return res.json() as { results: Array<Record<string, unknown>>; hasMore: boolean };
  };
  const ids = (answer: { results: Array<Record<string, unknown>> }) => answer.results.map((r) => r.sourceId);
  return {
    t,
    admin,
    publisher,
    reader,
    nobody,
    call,
    createClass,
    createObject,
    createPage,
    publicSearch,
    editorSearch,
    ids,
    qs,
  };
}

export type SearchKernel = Awaited<ReturnType<typeof startSearchKernel>>;
