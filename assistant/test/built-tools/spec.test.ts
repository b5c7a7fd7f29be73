// A built tool's spec: names, typed inputs with samples, a fixed host, placeholders that are inputs, and no literal
// secret anywhere; every refusal names its field.
import { describe, expect, it } from 'vitest';
import { AssistantInputError, sampleUrl, validateToolSpec } from '../../src';
import { WEATHER_SPEC } from './fixtures';

function refusal(spec: Record<string, unknown>): { field: string; message: string } {
  try {
    validateToolSpec({ ...WEATHER_SPEC, ...spec }, ['web_search']);
  } catch (error) {
    expect(error).toBeInstanceOf(AssistantInputError);
    return { field: (error as AssistantInputError).field, message: (error as Error).message };
  }
  throw new Error('expected a refusal');
}

describe('validateToolSpec', () => {
  it('takes a complete spec, and fills the samples into the URL for the guard', () => {
    const spec = validateToolSpec(WEATHER_SPEC);
    expect(spec).toMatchObject({ name: 'city_weather', method: 'GET', credential: 'Weather API', body: null });
    expect(sampleUrl({ ...spec, inputs: [{ ...spec.inputs[0], sample: 'São Paulo' }] })).toBe(
      'https://api.weather.example/v1/current?city=S%C3%A3o%20Paulo&units=metric',
    );
  });

  it.each([
    [{ name: 'Weather!' }, 'name', /snake_case/],
    [{ name: 'web_search' }, 'name', /already a tool of the assistant/],
    [{ purpose: '' }, 'purpose', /is missing/],
    [{ inputs: [{ name: 'city', type: 'date', description: 'x', sample: 'x' }] }, 'inputs[0].type', /one of string/],
    [{ inputs: [{ name: 'days', type: 'number', description: 'x', sample: 'three' }] }, 'inputs[0].sample', /number/],
    [{ method: 'FETCH' }, 'method', /one of GET/],
    [{ url: 'https://api.example/{country}/weather' }, 'url', /\{country\} is not one of the inputs/],
    [{ url: 'https://{city}.example/weather' }, 'url', /host must be fixed/],
    [{ url: 'ftp://api.example/weather?city={city}' }, 'url', /http or https/],
    [{ url: 'https://user:pw@api.example/weather?city={city}' }, 'url', /user or password/],
    [
      { url: 'https://api.example/weather?city={city}&api_key=0123456789abcdef' },
      'url',
      /"api_key" holds a literal secret/,
    ],
    [{ url: 'https://api.example/w?city={city}&k=sk-abcdefghijklmnopqrstuv' }, 'url', /OpenAI-style key/],
    [{ method: 'POST', body: { token: 'abc123def456' } }, 'body.token', /literal secret/],
    [{ method: 'GET', body: { city: '{city}' } }, 'body', /GET request has no body/],
    [{ responseFields: [] }, 'responseFields', /at least one/],
    [{ responseFields: [{ name: 'x', path: 'a..b' }] }, 'responseFields[0].path', /dotted path/],
  ])('refuses %j naming %s', (spec, field, message) => {
    const found = refusal(spec as Record<string, unknown>);
    expect(found.field).toBe(field);
    expect(found.message).toMatch(message);
  });
});
