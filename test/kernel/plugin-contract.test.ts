import { expect } from 'chai';
import { Type } from '@sinclair/typebox';
import { definePlugin, EnvFlag, type PluginManifest } from '../../kernel/index.ts';
import { eventually, startTestKernel } from '../helpers/kernel.ts';
import { startFailure } from './boot.ts';
import { ANY_JSON_ANSWER } from '../helpers/any-answer.ts';

declare module '../../kernel/index.ts' {
  interface PluginServices {
    testCounter: { next(): number; instance: object };
  }
  interface PluginContributions {
    testGreetings: { from: string; text: string };
  }
}

/** Records what happened, in order, so a test can assert the life cycle. */
function journal() {
  const events: string[] = [];
  return { events, add: (e: string) => void events.push(e) };
}

/** A plugin whose one service instance is observable from every entry point. */
function counterPlugin(log: ReturnType<typeof journal>) {
  let setups = 0;
  return definePlugin({
    id: 'test-counter',
    processes: ['core-api'],
    needs: ['db'],
    config: Type.Object({ TEST_COUNTER_LOUD: EnvFlag(false, 'test flag') }),
    async setup({ db, pluginConfig }) {
      setups += 1;
      // Setup runs after migrations: the kernel's tables exist.
      const users = await db('users').count({ n: '*' }).first();
      log.add(`setup:${setups}:users=${typeof users?.n}:loud=${pluginConfig.TEST_COUNTER_LOUD}`);
      let n = 0;
      return { instance: {}, next: () => ++n };
    },
    provides: { testCounter: ({ services }) => services },
    // Owns the registry and adds to it: a collector may contribute too.
    collects: ['testGreetings'],
    contributes: { testGreetings: () => ({ from: 'test-counter', text: 'hello' }) },
    routes(app, { services }) {
      app.get('/t/counter', { config: { public: true }, schema: { response: ANY_JSON_ANSWER } }, async () => ({
        n: services.next(),
      }));
      app.get('/t/slow', { config: { public: true }, schema: { response: ANY_JSON_ANSWER } }, async () => {
        log.add('slow-request-started');
        await new Promise((r) => setTimeout(r, 150));
        log.add('slow-request-done');
        return { ok: true };
      });
    },
    jobs: [
      {
        name: 'tick',
        firstRunAfterMs: 3_600_000,
        intervalMs: 3_600_000,
        run: async ({ services }) => void log.add(`job:${services.next()}`),
      },
    ],
    onStart: ({ services }) => void log.add(`start:${services.next()}`),
    onStop: () => void log.add('stop:test-counter'),
  });
}

/**
 * Needs the counter service, optionally a service nobody provides, and the counter's registry of
 * greetings, to which it contributes (every dependency points at the counter: no circle).
 */
function consumerPlugin(log: ReturnType<typeof journal>) {
  return definePlugin({
    id: 'test-consumer',
    processes: ['core-api'],
    needs: ['testCounter', 'testGreetings'],
    optional: ['dataObjects'],
    setup: ({ testCounter, dataObjects }) => {
      log.add(`consumer-setup:dataObjects=${dataObjects === undefined ? 'absent' : 'present'}`);
      return { counter: testCounter };
    },
    contributes: {
      testGreetings: () => [
        { from: 'test-consumer', text: 'hi' },
        { from: 'test-consumer', text: 'hey' },
      ],
    },
    routes(app, ctx) {
      app.get('/t/consumer', { config: { public: true }, schema: { response: ANY_JSON_ANSWER } }, async () => ({
        n: ctx.services.counter.next(),
        greetings: ctx.testGreetings.map((g) => `${g.from}:${g.text}`),
      }));
    },
    onStop: () => void log.add('stop:test-consumer'),
  });
}

describe('plugin contract: setup, provides, contributions, optional needs, stop', () => {
  it("builds a plugin's services once, after migrations, shared by routes, jobs, provides and onStart", async () => {
    const log = journal();
    const counter = counterPlugin(log);
    const t = await startTestKernel({
      plugins: [],
      extraPlugins: [counter, consumerPlugin(log)],
      env: { TEST_COUNTER_LOUD: 'true' },
    });
    try {
      expect(log.events.filter((e) => e.startsWith('setup:'))).to.deep.equal(['setup:1:users=number:loud=true']);
      // onStart took 1; the route, the consumer's route (through `provides`) and the job share the counter.
      expect(log.events).to.include('start:1');
      expect((await t.inject({ method: 'GET', url: '/t/counter' })).json()).to.deep.equal({ n: 2 });
      expect((await t.inject({ method: 'GET', url: '/t/consumer' })).json().n).to.equal(3);
      await t.kernel.runJob('test-counter', 'tick');
      expect(log.events).to.include('job:4');
      expect(t.kernel.resolve('testCounter')).to.equal(t.kernel.pluginDeps('test-counter').services);
    } finally {
      await t.close();
    }
  });

  it("gathers every loaded plugin's contributions into the collector's registry, in plugin order", async () => {
    const log = journal();
    const t = await startTestKernel({ plugins: [], extraPlugins: [counterPlugin(log), consumerPlugin(log)] });
    try {
      const body = (await t.inject({ method: 'GET', url: '/t/consumer' })).json();
      expect(body.greetings).to.deep.equal(['test-counter:hello', 'test-consumer:hi', 'test-consumer:hey']);
    } finally {
      await t.close();
    }
  });

  it('gives an optional need as undefined when its provider is not loaded, and the service when it is', async () => {
    const without = journal();
    const a = await startTestKernel({ plugins: [], extraPlugins: [counterPlugin(without), consumerPlugin(without)] });
    await a.close();
    expect(without.events).to.include('consumer-setup:dataObjects=absent');
    const withData = journal();
    const b = await startTestKernel({
      plugins: ['data'],
      extraPlugins: [counterPlugin(withData), consumerPlugin(withData)],
    });
    await b.close();
    expect(withData.events).to.include('consumer-setup:dataObjects=present');
  });

  it('runs onStop in reverse order after in-flight requests finished', async () => {
    const log = journal();
    const t = await startTestKernel({ plugins: [], extraPlugins: [counterPlugin(log), consumerPlugin(log)] });
    await t.kernel.listen(0);
    const address = t.kernel.app.server.address() as { port: number };
    const slow = fetch(`http://127.0.0.1:${address.port}/t/slow`).then((r) => r.status);
    // Close once the request is inside its handler (a fixed wait is a race on a loaded machine).
    await eventually(() => log.events.includes('slow-request-started'), { intervalMs: 5 });
    await t.close();
    expect(await slow).to.equal(200);
    const tail = log.events.slice(-3);
    expect(tail).to.deep.equal(['slow-request-done', 'stop:test-consumer', 'stop:test-counter']);
  });

  it('refuses an undeclared service at run time: the context holds only what the manifest declared', async () => {
    let reached: string | undefined;
    const nosy = definePlugin({
      id: 'test-nosy',
      processes: ['core-api'],
      needs: ['clock'],
      setup(deps) {
        try {
          void (deps as unknown as Record<string, unknown>).db;
          reached = 'db reached';
        } catch (err) {
          reached = (err as Error).message;
        }
      },
    });
    const t = await startTestKernel({ plugins: [], extraPlugins: [nosy as PluginManifest] });
    await t.close();
    expect(reached).to.match(/Could not resolve 'db'/);
  });

  it('refuses routesIn outside processes and a need that is also optional, naming the plugin', async () => {
    const outside = definePlugin({ id: 'test-outside', processes: ['core-api'], routesIn: ['gateway'], needs: [] });
    expect(await startFailure({ service: 'all', plugins: [outside as PluginManifest] }))
      .to.contain('"test-outside"')
      .and.to.contain('routesIn');
    const both = {
      id: 'test-both-ways',
      processes: ['core-api'],
      needs: ['db'],
      optional: ['db'],
    } as unknown as PluginManifest;
    expect(await startFailure({ service: 'all', plugins: [both] }))
      .to.contain('"test-both-ways"')
      .and.to.contain('"db"');
  });

  it('stops the plugins already set up when a later setup fails', async () => {
    const log = journal();
    const failing = definePlugin({
      id: 'test-failing',
      processes: ['core-api'],
      needs: ['testCounter'],
      setup() {
        throw new Error('setup refused');
      },
    });
    const message = await startFailure({ service: 'all', plugins: [counterPlugin(log), failing as PluginManifest] });
    expect(message).to.equal('setup refused');
    expect(log.events).to.include('stop:test-counter');
  });
});
