import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../kernel/index.ts';
import { SearchConfig } from './config.ts';
import './ports.ts';
import { searchRoutes } from './routes/search.ts';
import { createSearchServices } from './services/index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Full-text search in PostgreSQL (no search engine process): one documents table with a stored
 * tsvector per row analysed with its locale's text search configuration, a GIN index, and the
 * registry `searchSources` that other plugins contribute to (one source per record type). Documents
 * are replaced inside the write's transaction through the record-change hooks. Built in core-api and
 * the gateway (writes made there are indexed too); routes only in core-api.
 */
export default definePlugin({
  id: 'search',
  processes: ['core-api', 'gateway'],
  routesIn: ['core-api'],
  needs: ['db', 'readDb', 'recordHooks', 'searchSources'],
  collects: ['searchSources'],
  migrations: path.join(here, 'migrations'),
  config: SearchConfig,
  setup: (deps) => createSearchServices(deps),
  onStart: ({ services, searchSources }) => services.indexer.start(searchSources),
  onStop: ({ services }) => services.indexer.stop(),
  routes: (app, { services }) => searchRoutes(app, services),
});
