import type { PermissionDefinition } from '../../kernel/index.ts';

/** Seeded on the role `admin` by the kernel's first migration; declared here, where it is used. */
export const DATA_SUBJECT_MANAGE = 'data_subject:manage';

export const DATA_SUBJECT_PERMISSIONS: PermissionDefinition[] = [
  { key: DATA_SUBJECT_MANAGE, description: 'Search, export and erase the records held about a person' },
];
