import { HttpError, notFound, type Clock, type PluginServices } from '../../../../kernel/index.ts';

export interface CurrentWeather {
  city: string;
  country: string | null;
  temperatureC: number | null;
  description: string | null;
  humidity: number | null;
  observedAt: string | null;
}

const MAX_CACHED_CITIES = 500;
// A weather answer is a small JSON document: a larger one is cut (and fails to parse), never held whole.
const MAX_ANSWER_BYTES = 64 * 1024;

/** The current weather of a city from OpenWeather's `GET /data/2.5/weather`, trimmed and cached. */
export function weatherService(deps: {
  routes: PluginServices['gatewayRoutes'];
  clock: Clock;
  endpoint: string;
  cacheSeconds: number;
}) {
  const cache = new Map<string, { at: number; value: CurrentWeather }>();
  // Cities being fetched: visitors asking for one meanwhile share its call instead of each making one.
  const fetching = new Map<string, Promise<CurrentWeather>>();

  async function fetchCurrent(city: string, key: string, now: number): Promise<CurrentWeather> {
    const match = await deps.routes.matchRoute(deps.endpoint, 'GET', '/data/2.5/weather');
    if (!match)
      throw new HttpError(
        503,
        'WEATHER_NOT_CONFIGURED',
        `No gateway endpoint "${deps.endpoint}" with a GET /data/2.5/weather route`,
      );
    const answer = await deps.routes.callRoute(match.route.endpointId, match.route.routeId, {
      query: { q: city.trim(), units: 'metric' },
      maxBytes: MAX_ANSWER_BYTES,
    });
    if (answer.status === 404) throw notFound(`No weather for "${city}"`, 'CITY_NOT_FOUND');
    if (answer.status !== 200)
      throw new HttpError(502, 'UPSTREAM_STATUS', `The weather service answered ${answer.status}`);
    if (answer.truncated)
      throw new HttpError(502, 'UPSTREAM_TOO_LARGE', `The weather answer was larger than ${MAX_ANSWER_BYTES} bytes`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.body.toString('utf8'));
    } catch {
      throw new HttpError(502, 'UPSTREAM_NOT_JSON', 'The weather service did not answer JSON');
    }
    if (!parsed || typeof parsed !== 'object')
      throw new HttpError(502, 'UPSTREAM_NOT_JSON', 'The weather service did not answer a JSON object');
    const value = toWidget(parsed as Parameters<typeof toWidget>[0]);
    if (cache.size >= MAX_CACHED_CITIES) cache.delete(cache.keys().next().value!);
    cache.set(key, { at: now, value });
    return value;
  }

  return {
    async current(city: string): Promise<CurrentWeather> {
      const key = city.trim().toLowerCase();
      const now = deps.clock.now().getTime();
      const hit = cache.get(key);
      if (hit && now - hit.at < deps.cacheSeconds * 1000) return hit.value;
      let running = fetching.get(key);
      if (!running) {
        running = fetchCurrent(city, key, now).finally(() => fetching.delete(key));
        fetching.set(key, running);
      }
      return running;
    },
  };
}

function toWidget(body: {
  name?: string;
  sys?: { country?: string };
  main?: { temp?: number; humidity?: number };
  weather?: { description?: string }[];
  dt?: number;
}): CurrentWeather {
  return {
    city: body.name ?? '',
    country: body.sys?.country ?? null,
    temperatureC: typeof body.main?.temp === 'number' ? body.main.temp : null,
    description: body.weather?.[0]?.description ?? null,
    humidity: typeof body.main?.humidity === 'number' ? body.main.humidity : null,
    observedAt: typeof body.dt === 'number' ? new Date(body.dt * 1000).toISOString() : null,
  };
}

export type WeatherService = ReturnType<typeof weatherService>;
