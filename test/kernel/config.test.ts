import { expect } from 'chai';
import { Type } from '@sinclair/typebox';
import { loadKernelConfig } from '../../kernel/config.ts';
import { definePlugin, type PluginManifest } from '../../kernel/plugin.ts';
import { startTestKernel } from '../helpers/kernel.ts';
import { startFailure, testEnv } from './boot.ts';

const configured = definePlugin({
  id: 'test-configured',
  processes: ['core-api'],
  needs: [],
  config: Type.Object({
    TEST_WIDGET_LIMIT: Type.Integer({ minimum: 1, maximum: 10, default: 3 }),
    TEST_WIDGET_MODE: Type.Optional(Type.Union([Type.Literal('fast'), Type.Literal('safe')])),
  }),
}) as PluginManifest;

describe('configuration is validated at start, naming the variable', () => {
  for (const [name, value] of [
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['NODE_ENV', 'prod'],
    ['AUDIT_RETENTION_DAYS', '-1'],
    ['AUDIT_RETENTION_DAYS', 'forever'],
    ['TRUST_PROXY', 'yes'],
    ['METRICS_TOKEN', 'short'],
    ['HEAP_GROWING_PERCENT', '-5'],
    ['HEAP_GROWING_PERCENT', '1000'],
  ]) {
    it(`${name}=${value}`, async () => {
      expect(() => loadKernelConfig({ [name]: value })).to.throw(new RegExp(`\\b${name}\\b`));
      const message = await startFailure({ service: 'all', plugins: [], env: testEnv({ [name]: value }) });
      expect(message).to.contain(name);
    });
  }

  it('applies defaults and converts types', () => {
    const config = loadKernelConfig({ PORT: '8080', TRUST_PROXY: '1' });
    expect(config).to.include({
      PORT: 8080,
      TRUST_PROXY: 1,
      AUDIT_RETENTION_DAYS: 365,
      NODE_ENV: 'development',
      production: false,
      HEAP_GROWING_PERCENT: 100,
    });
    expect(loadKernelConfig({ AUDIT_RETENTION_DAYS: '0', NODE_ENV: 'production' })).to.include({
      AUDIT_RETENTION_DAYS: 0,
      production: true,
    });
  });

  it('validates a plugin config slice the same way', async () => {
    const limit = await startFailure({
      service: 'all',
      plugins: [configured],
      env: testEnv({ TEST_WIDGET_LIMIT: '11' }),
    });
    expect(limit).to.contain('TEST_WIDGET_LIMIT');
    const mode = await startFailure({
      service: 'all',
      plugins: [configured],
      env: testEnv({ TEST_WIDGET_MODE: 'reckless' }),
    });
    expect(mode).to.contain('TEST_WIDGET_MODE');
  });

  it('gives the plugin its validated slice', async () => {
    const t = await startTestKernel({ plugins: [], extraPlugins: [configured], env: { TEST_WIDGET_MODE: 'safe' } });
    try {
      expect(t.kernel.pluginDeps('test-configured').pluginConfig).to.deep.equal({
        TEST_WIDGET_LIMIT: 3,
        TEST_WIDGET_MODE: 'safe',
      });
      expect(t.kernel.config.plugins['test-configured']).to.deep.equal({
        TEST_WIDGET_LIMIT: 3,
        TEST_WIDGET_MODE: 'safe',
      });
    } finally {
      await t.close();
    }
  });
});
