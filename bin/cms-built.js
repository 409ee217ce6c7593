#!/usr/bin/env node
// Entry point of the compiled build (`npm run build` writes dist/); same commands as bin/cms.js.
const { main } = await import('../dist/runtime/cli.js');
await main(process.argv.slice(2));
