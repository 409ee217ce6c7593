#!/usr/bin/env node
// Entry point of the compiled build (`npm run build` writes dist/); same commands as bin/cms.js.
import module from 'node:module';
// Node 22.1+ keeps the compiled code of every module between starts; Node 20 has no such cache.
module.enableCompileCache?.();
const { main } = await import('../dist/runtime/cli.js');
await main(process.argv.slice(2));
