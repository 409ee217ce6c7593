import { startTestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import type { DataServices } from '../services/index.ts';

/**
 * A kernel with the data plugin, an administrator, an editor (objects:read + objects:write), a
 * publisher (editor + objects:publish), a reader, and every `object` change collected in `events`.
 */
export async function startDataKernel(env: Record<string, string> = {}) {
  const t = await startTestKernel({ plugins: ['data'], env });
  const admin = await t.admin();
  const { editor, publisher, reader } = await t.users({
    editor: ['objects:read', 'objects:write'],
    publisher: ['objects:read', 'objects:write', 'objects:publish'],
    reader: ['objects:read'],
  });
  const events = t.recordChanges('object');

  const call = t.call;

  let n = 0;
  /** Creates a class with a unique name and returns its id and name. */
  const createClass = async (fields: unknown[], prefix = 'cls'): Promise<{ id: string; name: string }> => {
    const name = `${prefix}_${Date.now().toString(36)}_${n++}`;
    const res = await call('POST', '/data-classes', admin, { name, label: name, fields });
    if (res.statusCode !== 201) throw new Error(`class create failed: ${res.body}`);
    return { id: res.json().id, name };
  };
  const createObject = async (body: Record<string, unknown>, user: TestUser = publisher) => {
    const res = await call('POST', '/data-objects', user, body);
    if (res.statusCode !== 201) throw new Error(`object create failed: ${res.body}`);
    return res.json();
  };
  /** The plugin's services (background index builds, for specs that wait for them). */
  const services = () => t.services<DataServices>('data');
  return {
    t,
    admin,
    editor,
    publisher,
    reader,
    events,
    call,
    createClass,
    createObject,
    services,
    clearEvents: () => events.splice(0),
  };
}

export type DataKernel = Awaited<ReturnType<typeof startDataKernel>>;
