import { expect } from 'chai';
import { PermissionRegistry } from '../../kernel/permissions.ts';
import { startTestKernel } from '../helpers/kernel.ts';

describe('permission keys', () => {
  const manage = { key: 'gateway:manage', description: 'Manage the gateway', shared: true };

  it('a shared key is declared by each plugin that checks it, listed once with every owner', () => {
    const registry = new PermissionRegistry();
    registry.register('gateway', [manage]);
    registry.register('client-api', [manage]);
    expect(registry.list()).to.deep.equal([{ ...manage, owner: 'gateway, client-api' }]);
  });

  it('refuses a key declared twice unless both declare it shared with the same text', () => {
    const registry = new PermissionRegistry();
    registry.register('gateway', [manage]);
    expect(() => registry.register('other', [{ key: 'gateway:manage', description: 'again' }])).to.throw(
      /declared by both "gateway" and "other"/,
    );
    expect(() => registry.register('other', [{ ...manage, description: 'Other text' }])).to.throw(
      /with different text/,
    );
  });

  it('the kernel declares no key of its own: with no plugin loaded, a route on objects:read cannot start', async () => {
    const probe = {
      id: 'probe-objects',
      processes: ['core-api' as const],
      needs: [],
      routes(app: import('../../kernel/index.ts').App) {
        app.get(
          '/probe',
          { config: { permission: 'objects:read' }, schema: { response: { 200: {} } } },
          async () => ({}),
        );
      },
    };
    const started = await startTestKernel({ plugins: [], extraPlugins: [probe] }).then(
      (t) => t.close().then(() => 'started'),
      (err: Error) => err.message,
    );
    expect(started).to.match(/requires unknown permission key "objects:read"/);
  });
});
