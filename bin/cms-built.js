#!/usr/bin/env node
// Entry point of the compiled build (`npm run build` writes dist/); same commands as bin/cms.js.
import { existsSync } from 'node:fs';
import module from 'node:module';
// Node 22.1+ keeps the compiled code of every module between starts; Node 20 has no such cache.
module.enableCompileCache?.();
// dist/cms.bundle.js is the runtime, the kernel, the plugins and their packages in one module
// (runtime/bundle.ts); with CMS_PLUGIN_PATH, external plugins and the product must share one copy of
// the kernel's modules, so the separate files start instead.
const bundle = new URL('../dist/cms.bundle.js', import.meta.url);
const useBundle = !process.env.CMS_PLUGIN_PATH && existsSync(bundle);
const { main } = await import(useBundle ? bundle.href : '../dist/runtime/cli.js');
await main(process.argv.slice(2));
