import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { ADMIN_API_SCHEMA_FILE, generateAdminApiSchema } from '../../../test/helpers/admin-api-schema.ts';

describe("admin-ui: the dashboard's API types", () => {
  it('match the OpenAPI document of the API (run `npm run admin:api-types` after changing a route)', async function () {
    this.timeout(120_000);
    const fresh = await generateAdminApiSchema();
    const committed = readFileSync(ADMIN_API_SCHEMA_FILE, 'utf8');
    // A short diff hint instead of two 250 kB strings.
    const at = [...fresh].findIndex((ch, i) => ch !== committed[i]);
    expect(
      fresh === committed,
      `plugins/admin-ui/app/src/api/schema.d.ts is stale (first difference near: ${JSON.stringify(fresh.slice(Math.max(0, at - 80), at + 80))}); run npm run admin:api-types`,
    ).to.equal(true);
  });
});
