import { expect } from 'chai';
import type { PluginManifest } from '../../kernel/plugin.ts';
import { startFailure } from './boot.ts';

const manifest = (m: { id: string; needs?: string[]; provides?: string[] }) =>
  ({
    id: m.id,
    processes: ['core-api'],
    needs: m.needs ?? [],
    provides: Object.fromEntries((m.provides ?? []).map((name) => [name, () => ({})])),
  }) as unknown as PluginManifest;

describe('plugin loader: refuses a bad plugin set, naming what is wrong', () => {
  it('a plugin needing a service nobody provides', async () => {
    const message = await startFailure({
      service: 'all',
      plugins: [manifest({ id: 'test-needy', needs: ['db', 'crystalBall'] })],
    });
    expect(message).to.contain('"test-needy"').and.to.contain('"crystalBall"');
  });

  it('a plugin needing a service of a plugin that is not loaded in this service', async () => {
    const provider = {
      ...manifest({ id: 'test-provider', provides: ['providedThing'] }),
      processes: ['gateway'],
    } as PluginManifest;
    const consumer = manifest({ id: 'test-consumer', needs: ['providedThing'] });
    const message = await startFailure({ service: 'core-api', plugins: [], extraPlugins: [provider, consumer] });
    expect(message).to.contain('"test-consumer"').and.to.contain('"providedThing"');
  });

  it('a circular pair', async () => {
    const a = manifest({ id: 'test-chicken', needs: ['egg'], provides: ['chicken'] });
    const b = manifest({ id: 'test-egg', needs: ['chicken'], provides: ['egg'] });
    const message = await startFailure({ service: 'all', plugins: [a, b] });
    expect(message).to.match(/circular/);
    expect(message).to.contain('test-chicken').and.to.contain('test-egg');
  });

  it('a circle of required needs, with an optional edge besides', async () => {
    // a needs b, b needs c, c needs a (and optionally b).
    const a = manifest({ id: 'test-a', needs: ['bThing'], provides: ['aThing'] });
    const b = manifest({ id: 'test-b', needs: ['cThing'], provides: ['bThing'] });
    const c = {
      ...manifest({ id: 'test-c', needs: ['aThing'], provides: ['cThing'] }),
      optional: ['bThing'],
    } as PluginManifest;
    expect(await startFailure({ service: 'all', plugins: [a, b, c] })).to.match(/circular/);
  });

  it('two plugins providing the same service, or a kernel service name', async () => {
    const twice = await startFailure({
      service: 'all',
      plugins: [manifest({ id: 'test-one', provides: ['thing'] }), manifest({ id: 'test-two', provides: ['thing'] })],
    });
    expect(twice).to.contain('"thing"').and.to.contain('test-one').and.to.contain('test-two');
    const kernelName = await startFailure({
      service: 'all',
      plugins: [manifest({ id: 'test-usurper', provides: ['db'] })],
    });
    expect(kernelName).to.contain('test-usurper').and.to.contain('"db"');
  });

  it('a permission key declared by two plugins', async () => {
    const a = {
      ...manifest({ id: 'test-keys-a' }),
      permissions: [{ key: 'things:manage', description: 'a' }],
    } as PluginManifest;
    const b = {
      ...manifest({ id: 'test-keys-b' }),
      permissions: [{ key: 'things:manage', description: 'b' }],
    } as PluginManifest;
    const message = await startFailure({ service: 'all', plugins: [a, b] });
    expect(message).to.contain('things:manage').and.to.contain('test-keys-a').and.to.contain('test-keys-b');
  });
});
