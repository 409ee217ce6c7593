import { Type } from '@sinclair/typebox';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../../../kernel/index.ts';
import { weatherService } from './weather.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * An example remote plugin: a small public weather widget for published sites. It reads the current
 * weather through a gateway endpoint made from the `openweathermap` preset (credentials stay in the
 * gateway), trims the answer to what a widget shows and caches it for a few minutes per city. Its
 * routes folder is mounted by the gateway under /api/remote/weather-widget/.
 *
 * Start it with CMS_PLUGIN_PATH=plugins/gateway/examples/weather-widget. A copy outside this repository
 * imports the kernel by package name (`cms-platform/kernel`) instead of the relative path used here.
 */
export default definePlugin({
  id: 'weather-widget',
  processes: ['gateway'],
  needs: ['gatewayRoutes', 'clock'],
  config: Type.Object({
    WEATHER_WIDGET_ENDPOINT: Type.String({
      default: 'openweathermap',
      minLength: 1,
      maxLength: 100,
      description: 'name of the gateway endpoint to ask',
    }),
    WEATHER_WIDGET_CACHE_SECONDS: Type.Integer({
      default: 300,
      minimum: 0,
      maximum: 86_400,
      description: "how long one city's answer is reused",
    }),
  }),
  setup: ({ gatewayRoutes, clock, pluginConfig }) =>
    weatherService({
      routes: gatewayRoutes,
      clock,
      endpoint: pluginConfig.WEATHER_WIDGET_ENDPOINT,
      cacheSeconds: pluginConfig.WEATHER_WIDGET_CACHE_SECONDS,
    }),
  contributes: {
    gatewayRemotePlugins: ({ services }) => ({
      id: 'weather-widget',
      description: 'Current weather of a city for published sites, through the OpenWeather endpoint',
      version: '1.0.0',
      routesDir: path.join(here, 'routes'),
      options: { weather: services },
    }),
  },
});
