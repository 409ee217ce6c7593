// Writes the reverse proxy configuration rendered from the edge table (edge/routes.ts), with the
// inputs taken from the environment (see the header of edge/nginx.conf). Without options it rewrites
// edge/nginx.conf; `--out <file>` writes elsewhere, `--stdout` prints.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { EdgeInputError, edgeInputsFromEnv, renderNginxConf } from '../edge/generate.ts';
import { PROJECT_ROOT } from '../kernel/loader.ts';

const { values } = parseArgs({ options: { out: { type: 'string' }, stdout: { type: 'boolean' } } });
let conf: string;
try {
  conf = renderNginxConf(edgeInputsFromEnv(process.env));
} catch (err) {
  if (!(err instanceof EdgeInputError)) throw err;
  console.error(`edge:config: ${err.message}`);
  process.exit(1);
}
if (values.stdout) {
  process.stdout.write(conf);
} else {
  const file = path.resolve(values.out ?? path.join(PROJECT_ROOT, 'edge', 'nginx.conf'));
  writeFileSync(file, conf);
  console.log(`written: ${file}`);
}
