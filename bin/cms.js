#!/usr/bin/env node
// Entry point: TypeScript sources run through tsx, so no build step is needed to start.
import module from 'node:module';
// Node 22.1+ keeps the compiled code of every module between starts; Node 20 has no such cache.
module.enableCompileCache?.();
import { register } from 'tsx/esm/api';
register();
const { main } = await import('../runtime/cli.ts');
await main(process.argv.slice(2));
