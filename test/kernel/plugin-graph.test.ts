import { expect } from 'chai';
import { SERVICE_NAMES } from '../../kernel/config.ts';
import { KERNEL_SERVICE_NAMES } from '../../kernel/kernel.ts';
import { discoverPlugins, orderPlugins, pluginEdges, selectPlugins } from '../../kernel/loader.ts';
import { describePluginSet, formatPluginGraph } from '../../kernel/plugin-graph.ts';
import type { PluginManifest } from '../../kernel/plugin.ts';
import { startFailure, testEnv } from './boot.ts';

const KERNEL = new Set<string>(KERNEL_SERVICE_NAMES);

/** A fake manifest: only what the loader reads. */
const manifest = (m: {
  id: string;
  needs?: string[];
  optional?: string[];
  provides?: string[];
  collects?: string[];
  contributes?: string[];
}) =>
  ({
    id: m.id,
    processes: ['core-api'],
    needs: m.needs ?? [],
    optional: m.optional,
    collects: m.collects,
    provides: Object.fromEntries((m.provides ?? []).map((name) => [name, () => ({})])),
    contributes: Object.fromEntries((m.contributes ?? []).map((name) => [name, () => ({})])),
  }) as unknown as PluginManifest;

const refusal = (plugins: PluginManifest[]) => {
  try {
    orderPlugins(plugins, KERNEL);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the plugin set was accepted');
};

describe('plugin graph: no circle between plugins, whatever the kind of dependency', () => {
  it('refuses a circle of required needs, naming the plugins and the services', () => {
    const message = refusal([
      manifest({ id: 'test-a', needs: ['bThing'], provides: ['aThing'] }),
      manifest({ id: 'test-b', needs: ['cThing'], provides: ['bThing'] }),
      manifest({ id: 'test-c', needs: ['aThing'], provides: ['cThing'] }),
    ]);
    expect(message).to.contain('circular plugin dependency: test-a -> test-b -> test-c -> test-a');
    expect(message).to.contain('"test-c" needs "aThing" of "test-a"');
  });

  it('refuses two plugins that use each other optionally (no late binding)', () => {
    const message = refusal([
      manifest({ id: 'test-left', optional: ['rightThing'], provides: ['leftThing'] }),
      manifest({ id: 'test-right', optional: ['leftThing'], provides: ['rightThing'] }),
    ]);
    expect(message).to.match(/circular plugin dependency: test-left -> test-right -> test-left/);
    expect(message).to.contain('"test-left" optionally uses "rightThing" of "test-right"');
  });

  it('refuses a triangle closed by one optional service', () => {
    const message = refusal([
      manifest({ id: 'test-content', optional: ['dataThing'], provides: ['sitesThing'] }),
      manifest({ id: 'test-data', optional: ['assetThing'], provides: ['dataThing'] }),
      manifest({ id: 'test-assets', needs: ['sitesThing'], provides: ['assetThing'] }),
    ]);
    expect(message).to.contain('test-content -> test-data -> test-assets -> test-content');
  });

  it('refuses a collector that uses a service of a plugin contributing to its registry', () => {
    const message = refusal([
      manifest({ id: 'test-collector', needs: ['thingList'], collects: ['thingList'], optional: ['helper'] }),
      manifest({ id: 'test-contributor', contributes: ['thingList'], provides: ['helper'] }),
    ]);
    expect(message).to.contain('"test-contributor" contributes to "thingList" of "test-collector"');
    expect(message).to.contain('"test-collector" optionally uses "helper" of "test-contributor"');
  });

  it('accepts the same plugins once one direction is a registry, and orders providers first', () => {
    const ordered = orderPlugins(
      [
        manifest({ id: 'test-pages', optional: ['routesThing'], contributes: ['bindingSources'] }),
        manifest({
          id: 'test-gateway',
          needs: ['bindingSources'],
          collects: ['bindingSources'],
          provides: ['routesThing'],
        }),
      ],
      KERNEL,
    );
    expect(ordered.map((p) => p.id)).to.deep.equal(['test-gateway', 'test-pages']);
    // An optional service nobody provides, or a contribution nobody collects, is no dependency.
    const alone = [manifest({ id: 'test-alone', optional: ['nobodysThing'], contributes: ['nobodysList'] })];
    expect(pluginEdges(alone, KERNEL)).to.deep.equal([]);
  });

  it('refuses an optional circle at start-up, like a required one', async () => {
    const message = await startFailure({
      service: 'all',
      plugins: [],
      extraPlugins: [
        manifest({ id: 'test-left', optional: ['rightThing'], provides: ['leftThing'] }),
        manifest({ id: 'test-right', optional: ['leftThing'], provides: ['rightThing'] }),
      ],
    });
    expect(message).to.match(/circular plugin dependency/);
    expect(message).to.contain('test-left').and.to.contain('test-right');
  });

  it("the project's plugins form no circle in any process", async () => {
    const all = await discoverPlugins();
    expect(all.length).to.be.greaterThan(5);
    for (const service of ['all', ...SERVICE_NAMES] as const) {
      const selected = selectPlugins(all, service, []);
      const ordered = orderPlugins(selected, KERNEL);
      expect(ordered.map((p) => p.id)).to.have.members(selected.map((p) => p.id));
      // Each plugin comes after every plugin whose service it uses.
      const position = new Map(ordered.map((p, i) => [p.id, i]));
      for (const e of pluginEdges(selected, KERNEL).filter((x) => !x.registry && x.kind !== 'contributes'))
        expect(position.get(e.from), `${service}: ${e.from} after ${e.to}`).to.be.greaterThan(position.get(e.to)!);
    }
  });

  it('`cms plugins` prints every plugin in start order with what it declares, and the dependencies', async () => {
    const text = await describePluginSet('all', testEnv());
    const all = orderPlugins(await discoverPlugins(), KERNEL);
    let at = -1;
    for (const p of all) {
      const found = text.indexOf(`. ${p.id}\n`);
      expect(found, p.id).to.be.greaterThan(at);
      at = found;
    }
    for (const label of ['processes', 'needs', 'optional', 'provides', 'collects', 'contributes'])
      expect(text).to.contain(`      ${label}`);
    expect(text).to.match(/content -> gateway +optional gatewayRoutes; contributes gatewayBindingSources/);
    const fake = formatPluginGraph(
      [manifest({ id: 'test-solo', needs: ['db'], optional: ['nobodysThing'] })],
      'core-api',
      KERNEL,
    );
    expect(fake).to.contain('needs       db (kernel)').and.to.contain('optional    nobodysThing (not loaded)');
    expect(fake).to.contain('(none)');
  });
});
