/**
 * A local stand-in for the Figma REST API (`npm run figma:fixture-server`), serving the landing page
 * fixture of `test/fixtures/figma/` on 127.0.0.1 (port FIGMA_FIXTURE_PORT, default 4010). Start the
 * product with `FIGMA_API_URL=http://127.0.0.1:4010` and store the printed token with
 * `PUT /figma/settings` (plugins/figma/README.md walks it). Needs the development dependencies.
 */
import { FIGMA_KEYS, startFigmaStandIn } from '../test/helpers/figma-server.ts';

const port = Number(process.env.FIGMA_FIXTURE_PORT ?? 4010);
const standIn = await startFigmaStandIn({ port });
console.log(`Figma stand-in on ${standIn.url}`);
console.log(`token: ${standIn.token}`);
console.log(`landing page file: ${FIGMA_KEYS.landing} (frame 1:2)`);
console.log(`link: https://www.figma.com/design/${FIGMA_KEYS.landing}/Landing-page?node-id=1-2`);
