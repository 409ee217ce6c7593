// Regenerates the dashboard's API types (plugins/admin-ui/app/src/api/schema.d.ts) from the
// OpenAPI document of a kernel with every plugin. Run after changing a route; a test fails when the
// committed file is stale.
import { writeFileSync } from 'node:fs';
import { teardownTestDatabases } from '../test/helpers/database.ts';
import { ADMIN_API_SCHEMA_FILE, generateAdminApiSchema } from '../test/helpers/admin-api-schema.ts';

try {
  writeFileSync(ADMIN_API_SCHEMA_FILE, await generateAdminApiSchema());
  console.log(`wrote ${ADMIN_API_SCHEMA_FILE}`);
} finally {
  await teardownTestDatabases();
}
