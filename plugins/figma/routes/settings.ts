import { Type } from '@sinclair/typebox';
import { type App, requestContext } from '../../../kernel/index.ts';
import type { FigmaSettingsService } from '../services/settings.ts';
import { SettingsAnswer } from './answers.ts';

const tags = ['figma'];
const SettingsBody = Type.Object(
  {
    token: Type.Optional(
      Type.Union([Type.Null(), Type.String({ maxLength: 400 })], {
        description: 'a personal access token; blank keeps the stored one, null removes it',
      }),
    ),
  },
  { additionalProperties: false },
);

/** `/figma/settings`: the access token, masked. Changing it is off in the sandbox profile. */
export function settingsRoutes(app: App, settings: FigmaSettingsService): void {
  app.get(
    '/figma/settings',
    { config: { permission: 'settings:manage' }, schema: { tags, response: { 200: SettingsAnswer } } },
    async () => settings.view(),
  );
  app.put(
    '/figma/settings',
    {
      config: { permission: 'settings:manage', sandbox: 'block' },
      schema: { tags, body: SettingsBody, response: { 200: SettingsAnswer } },
    },
    async (request) => settings.update(requestContext(request), request.body.token),
  );
}
