import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';

/* The answers of the bundle routes: the export's zip and the import's report. */

const Counts = Type.Record(Type.String(), Type.Integer());

const PlanAction = Type.Object({
  kind: Type.String(),
  name: Type.String(),
  action: Type.Union([Type.Literal('create'), Type.Literal('reuse'), Type.Literal('conflict')]),
  reason: Type.Optional(Type.String()),
  targetPath: Type.Optional(Type.String()),
});

const AssetPlanItem = Type.Object({
  id: Type.String(),
  path: Type.String(),
  size: Type.Union([Type.Integer(), Type.Null()]),
  action: Type.Union([Type.Literal('upload'), Type.Literal('reuse'), Type.Literal('conflict')]),
  targetPath: Type.String(),
  reason: Type.Optional(Type.String()),
  stored: Type.Optional(Type.Literal(false, { description: 'over the asset limit: not stored by the apply' })),
});

const Warnings = Type.Array(Type.String());

/** `?dryRun=1`: what the apply would do; nothing is written. */
export const DryRunReport = Type.Object({
  state: Type.Literal('dry run'),
  version: Type.Integer({ description: 'the manifest version' }),
  website: Type.Object({ name: Type.String(), rootPath: Type.String() }),
  counts: Counts,
  classActions: Type.Array(PlanAction),
  actions: Type.Array(PlanAction),
  assetPlan: Type.Array(AssetPlanItem),
  warnings: Warnings,
  docs: Type.Optional(
    Type.Object({
      sourceFolder: Type.Union([Type.String(), Type.Null()]),
      targetFolder: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});

/** The apply (201): what it created. */
export const AppliedImport = Type.Object({
  state: Type.Literal('applied'),
  websiteId: Type.Optional(Type.String()),
  rootPath: Type.String(),
  created: Counts,
  assets: Type.Object({
    uploaded: Type.Integer(),
    reused: Type.Integer(),
    notStored: Type.Array(Type.Object({ path: Type.String(), reason: Type.String() })),
  }),
  warnings: Warnings,
  docsFolder: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

/** The bundle zip (`bundle.json` and the files), streamed as it is made. */
export const BundleZip = {
  description: 'the website bundle: bundle.json (manifest version 2) and assets/0001-<name> ...',
  content: {
    'application/zip': {
      schema: Type.Unsafe<Readable>({ type: 'string', format: 'binary', description: 'a zip archive' }),
    },
  },
};
