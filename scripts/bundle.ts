/** The second half of `npm run build` (after tsc wrote dist/): dist/cms.bundle.js, see runtime/bundle.ts. */
import path from 'node:path';
import { bundleDist } from '../runtime/bundle.ts';

const started = performance.now();
const outfile = await bundleDist();
console.log(`bundled ${path.relative(process.cwd(), outfile)} in ${Math.round(performance.now() - started)} ms`);
