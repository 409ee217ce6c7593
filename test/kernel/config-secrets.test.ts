import { expect } from 'chai';
import type { TObject, TSchema } from '@sinclair/typebox';
import assets from '../../plugins/assets/index.ts';
import { AssetsConfig } from '../../plugins/assets/config.ts';
import { KernelConfigSchema, loadKernelConfig, parseEnvSlice } from '../../kernel/config.ts';
import { discoverPlugins } from '../../kernel/loader.ts';
import type { PluginManifest } from '../../kernel/plugin.ts';
import { PublishRunnerConfig } from '../../plugins/publish/runner/settings.ts';
import { startFailure, testEnv } from './boot.ts';

const MARK = 'S3CR3T-';

/** A value that breaks a text variable's rule and carries the mark: too long, or not matching its pattern. */
function breaking(prop: TSchema): string | undefined {
  if (prop.type !== 'string') return undefined;
  if (typeof prop.maxLength === 'number') return MARK + 'x'.repeat(prop.maxLength);
  if (typeof prop.pattern === 'string') return `${MARK} not matching`;
  if (typeof prop.minLength === 'number' && prop.minLength > MARK.length + 1) return MARK;
  return undefined;
}

function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the configuration was accepted');
}

/**
 * Issue 30, item 12: a refused variable is named with its rule, never quoted when it is text, since any
 * text variable may be a secret (tokens, keys, URLs with passwords).
 */
describe('configuration errors never print a secret', function () {
  this.timeout(60_000);

  it('names the variable and the rule of METRICS_TOKEN, UPLOAD_TOKEN_SECRET, DAM_SERVICE_TOKEN and PUBLISH_RUNNER_TOKEN', async () => {
    const short = `${MARK}abc`; // below each token's minimum length
    const kernel = messageOf(() => loadKernelConfig({ METRICS_TOKEN: short }));
    expect(kernel)
      .to.contain('METRICS_TOKEN')
      .and.to.match(/length/);
    expect(kernel).not.to.contain(MARK);
    for (const name of ['UPLOAD_TOKEN_SECRET', 'DAM_SERVICE_TOKEN']) {
      const message = messageOf(() => parseEnvSlice(AssetsConfig, { [name]: short }));
      expect(message)
        .to.contain(name)
        .and.to.match(/length/);
      expect(message).not.to.contain(MARK);
    }
    const runner = messageOf(() =>
      parseEnvSlice(PublishRunnerConfig, { PUBLISH_API_URL: 'http://127.0.0.1:1', PUBLISH_RUNNER_TOKEN: short }),
    );
    expect(runner).to.contain('PUBLISH_RUNNER_TOKEN').and.not.to.contain(MARK);
    // The same through a kernel start with the asset plugin loaded.
    const started = await startFailure({
      service: 'all',
      plugins: [assets as PluginManifest],
      env: testEnv({ UPLOAD_TOKEN_SECRET: short }),
    });
    expect(started).to.contain('UPLOAD_TOKEN_SECRET').and.not.to.contain(MARK);
  });

  it('quotes no text variable of the kernel, any plugin or the publish runner', async () => {
    const schemas: Array<[string, TObject]> = [
      ['kernel', KernelConfigSchema],
      ['publish runner', PublishRunnerConfig],
    ];
    for (const plugin of await discoverPlugins()) if (plugin.config) schemas.push([plugin.id, plugin.config]);
    let checked = 0;
    for (const [owner, schema] of schemas) {
      for (const [name, prop] of Object.entries(schema.properties)) {
        const value = breaking(prop as TSchema);
        if (value === undefined) continue;
        const message = messageOf(() => parseEnvSlice(schema, { [name]: value }));
        expect(message, `${owner} ${name}`).to.contain(name);
        expect(message, `${owner} ${name}`).not.to.contain(MARK);
        checked++;
      }
    }
    expect(checked).to.be.greaterThan(20);
  });

  it('still quotes a number, a flag or a choice, which cannot be secrets', () => {
    expect(messageOf(() => loadKernelConfig({ NODE_ENV: 'prod' }))).to.contain('"prod"');
    expect(messageOf(() => loadKernelConfig({ PORT: '70000' }))).to.contain('"70000"');
  });
});
