// The spec the built-tools tests share: a weather lookup by city, authenticated by a named credential.
export const WEATHER_SPEC = {
  name: 'city_weather',
  purpose: 'Gets the current weather for a city.',
  inputs: [{ name: 'city', type: 'string', description: 'The city, e.g. Paris', sample: 'Paris' }],
  method: 'GET',
  url: 'https://api.weather.example/v1/current?city={city}&units=metric',
  credential: 'Weather API',
  responseFields: [
    { name: 'temperature', path: 'main.temp' },
    { name: 'summary', path: 'weather.0.description' },
  ],
};
