#!/usr/bin/env node
// Entry point: TypeScript sources run without a build step. They start as one bundle made from the
// sources (runtime/bundle.ts, made again when a source file changes). tsx loads what stays outside the
// bundle (migrations, external plugins); it is registered after the bundle is loaded, so that its hooks
// never see the bundle's megabytes.
import module from 'node:module';
// Node 22.1+ keeps the compiled code of every module between starts; Node 20 has no such cache.
module.enableCompileCache?.();
// tsx is a development dependency: a production install (npm ci --omit=dev) runs bin/cms-built.js.
const { register, tsImport } = await import('tsx/esm/api').catch((err) => {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND') throw err;
  console.error('bin/cms.js runs the TypeScript sources and needs the development dependencies (npm ci).');
  console.error('A production install runs the build instead: npm run build, then node bin/cms-built.js');
  process.exit(1);
});

// With CMS_PLUGIN_PATH, external plugins and the product must share one copy of the kernel's modules.
const bundle = process.env.CMS_PLUGIN_PATH
  ? undefined
  : await (await tsImport('../runtime/bundle.ts', import.meta.url)).sourceBundle();
const { main } = bundle ? await import(bundle) : {};
register();
await (main ?? (await import('../runtime/cli.ts')).main)(process.argv.slice(2));
