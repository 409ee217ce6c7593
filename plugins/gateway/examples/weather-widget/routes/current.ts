import { Type } from '@sinclair/typebox';
import type { App } from '../../../../../kernel/index.ts';
import type { WeatherService } from '../weather.ts';

/** GET /api/remote/weather-widget/current?city=Berlin: public, for published sites (cached per city). */
export default async function currentWeather(app: App, opts: { weather: WeatherService }): Promise<void> {
  app.get<{ Querystring: { city: string } }>(
    '/current',
    {
      config: { public: true },
      schema: {
        tags: ['remote'],
        querystring: Type.Object(
          { city: Type.String({ minLength: 1, maxLength: 100, pattern: '^[^/?#]+$' }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            city: Type.String(),
            country: Type.Union([Type.String(), Type.Null()]),
            temperatureC: Type.Union([Type.Number(), Type.Null()]),
            description: Type.Union([Type.String(), Type.Null()]),
            humidity: Type.Union([Type.Number(), Type.Null()]),
            observedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
          }),
        },
      },
    },
    async (request) => opts.weather.current(request.query.city),
  );
}
