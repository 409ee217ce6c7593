import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import { ASSET_KEYS } from '../permissions.ts';
import { FITS, OUTPUT_FORMATS } from '../services/images.ts';
import type { AssetServices } from '../services/index.ts';
import { PRESET_NAME, type Preset } from '../services/presets.ts';
import { Deleted, Preset as PresetAnswer, PresetList } from './answers.ts';

const Dimension = Type.Union([Type.Integer({ minimum: 1, maximum: 8000 }), Type.Null()]);
const PresetBody = Type.Object(
  {
    name: Type.String({ pattern: PRESET_NAME, maxLength: 64 }),
    width: Type.Optional(Dimension),
    height: Type.Optional(Dimension),
    fit: Type.Optional(Type.Union(FITS.map((f) => Type.Literal(f)))),
    format: Type.Optional(Type.Union([...OUTPUT_FORMATS, 'auto', 'original'].map((f) => Type.Literal(f)))),
    quality: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  },
  { additionalProperties: false },
);

/** Named image presets (our routes: the spec names presets but not how they are defined). */
export async function presetRoutes(app: App, { presets }: AssetServices): Promise<void> {
  const tags = ['assets'];
  const params = Type.Object({ name: Type.String({ pattern: PRESET_NAME, maxLength: 64 }) });
  app.get(
    '/api/v1/dam/presets',
    { config: { permission: ASSET_KEYS.read }, schema: { tags, response: { 200: PresetList } } },
    async () => ({
      presets: await presets.list(),
    }),
  );
  // Create or replace by name (POST, so no path id names a record that may not exist yet).
  app.post(
    '/api/v1/dam/presets',
    { config: { permission: ASSET_KEYS.manage }, schema: { tags, body: PresetBody, response: { 200: PresetAnswer } } },
    async (request) => {
      const b = request.body;
      return presets.save({
        name: b.name,
        width: b.width ?? null,
        height: b.height ?? null,
        fit: b.fit ?? 'inside',
        format: (b.format ?? 'auto') as Preset['format'],
        quality: b.quality ?? 80,
      });
    },
  );
  app.delete(
    '/api/v1/dam/presets/:name',
    { config: { permission: ASSET_KEYS.manage }, schema: { tags, params, response: { 200: Deleted } } },
    async (request) => {
      await presets.remove(request.params.name);
      return { deleted: true };
    },
  );
}
