import { FormatRegistry } from '@sinclair/typebox';

// Formats used by config and stored-settings schemas when checked with typebox's Value (Fastify's ajv
// has its own formats for request schemas).
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** True for a UUID in its text form (ids from a path must be one before they reach PostgreSQL as one). */
export const isUuid = (value: string) => UUID.test(value);

if (!FormatRegistry.Has('email')) FormatRegistry.Set('email', (v) => EMAIL.test(v));
if (!FormatRegistry.Has('uuid')) FormatRegistry.Set('uuid', (v) => UUID.test(v));
if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => !Number.isNaN(Date.parse(v)));
