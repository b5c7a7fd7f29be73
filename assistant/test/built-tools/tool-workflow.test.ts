// A built tool's workflow, rendered from its spec: typed inputs, the guard before the call, the HTTP Request with the
// named credential and no redirects, the response fields mapped; no secret in it.
import { describe, expect, it } from 'vitest';
import { renderToolWorkflow, urlExpression, validateToolSpec } from '../../src';
import { WEATHER_SPEC } from './fixtures';

const credential = { id: 'cred123', name: 'Weather API', type: 'httpQueryAuth' };

describe('renderToolWorkflow', () => {
  it('renders trigger → guard → call → map, with the credential by id and name', () => {
    const workflow = renderToolWorkflow(validateToolSpec(WEATHER_SPEC), credential);
    const byName = Object.fromEntries(workflow.nodes.map((node) => [node.name, node]));
    expect(byName['When Called by the Agent'].parameters.workflowInputs).toEqual({
      values: [{ name: 'city', type: 'string' }],
    });
    expect(byName['Check the URL'].parameters).toEqual({
      operation: 'checkUrl',
      url: '={{ "https://api.weather.example/v1/current?city=" + encodeURIComponent(String($json.city ?? \'\')) + "&units=metric" }}',
    });
    expect(byName['Call the API']).toMatchObject({
      type: 'n8n-nodes-base.httpRequest',
      parameters: {
        method: 'GET',
        url: '={{ $json.url }}',
        authentication: 'genericCredentialType',
        genericAuthType: 'httpQueryAuth',
        options: { redirect: { redirect: { followRedirects: false } } },
      },
      credentials: { httpQueryAuth: { id: 'cred123', name: 'Weather API' } },
    });
    expect(byName['Map the Response'].parameters.assignments).toEqual({
      assignments: [
        expect.objectContaining({ name: 'temperature', value: '={{ $json?.["main"]?.["temp"] }}' }),
        expect.objectContaining({ name: 'summary', value: '={{ $json?.["weather"]?.[0]?.["description"] }}' }),
      ],
    });
    expect(workflow.connections).toEqual({
      'When Called by the Agent': { main: [[{ node: 'Check the URL', type: 'main', index: 0 }]] },
      'Check the URL': { main: [[{ node: 'Call the API', type: 'main', index: 0 }]] },
      'Call the API': { main: [[{ node: 'Map the Response', type: 'main', index: 0 }]] },
    });
    expect(workflow.settings).toMatchObject({ executionTimeout: 300, errorWorkflow: 'asstErrorWorkfl1' });
  });

  it('sends a JSON body built from the inputs, and no authentication without a credential', () => {
    const spec = validateToolSpec({
      ...WEATHER_SPEC,
      method: 'POST',
      url: 'https://api.example/notes',
      credential: null,
      body: { title: 'Note: {city}', city: '{city}' },
    });
    const call = renderToolWorkflow(spec, null).nodes.find((node) => node.name === 'Call the API')!;
    expect(call.parameters).toMatchObject({
      authentication: 'none',
      sendBody: true,
      specifyBody: 'json',
      jsonBody:
        '={{ JSON.stringify({ "title": "Note: " + String($(\'When Called by the Agent\').item.json.city ?? \'\'), "city": $(\'When Called by the Agent\').item.json.city }) }}',
    });
    expect(call.credentials).toBeUndefined();
  });

  it('quotes literal URL parts, so a quote in them cannot end the expression', () => {
    expect(urlExpression('https://a.example/x"y?q={q}')).toBe(
      '={{ "https://a.example/x\\"y?q=" + encodeURIComponent(String($json.q ?? \'\')) }}',
    );
  });
});
