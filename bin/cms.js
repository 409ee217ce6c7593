#!/usr/bin/env node
// Entry point: TypeScript sources run through tsx, so no build step is needed to start.
import { register } from 'tsx/esm/api';
register();
const { main } = await import('../runtime/cli.ts');
await main(process.argv.slice(2));
