// A loopback weather API in OpenWeatherMap's current-weather format (GET /data/2.5/weather?q=<city>&appid=<key>&units=
// metric), for the tool-building tests: the key is a query parameter the tool's n8n credential (Query Auth) adds;
// a wrong or missing key gets OpenWeatherMap's 401, an unknown city its 404. It counts the calls it answered.
import { listenOnLoopback, sendJson, type RunningServer } from './http-util';

/** The cities it knows, with their weather. */
export const WEATHER: Record<string, { temp: number; description: string }> = {
  paris: { temp: 18.5, description: 'light rain' },
  oslo: { temp: -3.25, description: 'snow' },
};

export interface WeatherApi extends RunningServer {
  /** The calls answered with the weather (the key was right and the city known). */
  answered(): number;
}

export async function startWeatherApi(apiKey: string): Promise<WeatherApi> {
  let answered = 0;
  const server = await listenOnLoopback((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/data/2.5/weather' || req.method !== 'GET') {
      sendJson(res, 404, { cod: '404', message: 'Internal error' });
      return;
    }
    if (url.searchParams.get('appid') !== apiKey) {
      sendJson(res, 401, {
        cod: 401,
        message: 'Invalid API key. Please see https://openweathermap.org/faq#error401 for more info.',
      });
      return;
    }
    const city = (url.searchParams.get('q') ?? '').trim();
    const weather = WEATHER[city.toLowerCase()];
    if (!weather) {
      sendJson(res, 404, { cod: '404', message: 'city not found' });
      return;
    }
    answered += 1;
    sendJson(res, 200, {
      weather: [{ id: 500, main: 'Rain', description: weather.description, icon: '10d' }],
      main: { temp: weather.temp, feels_like: weather.temp - 1, humidity: 80 },
      name: city[0].toUpperCase() + city.slice(1).toLowerCase(),
      cod: 200,
    });
  });
  return { ...server, answered: () => answered };
}
