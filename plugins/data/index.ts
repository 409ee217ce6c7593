import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../kernel/plugin.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Structured data: classes, components, objects (one row per language), workflows, preview links and
 * the public read API. Every write announces itself through the kernel's record-change hooks in its
 * transaction (record type `object`).
 */
export default definePlugin({
  id: 'data',
  services: ['core-api'],
  needs: ['db', 'audit', 'recordHooks', 'permissions', 'clock', 'config'],
  migrations: path.join(here, 'migrations'),
  permissions: [],
  async routes() {},
});
