// Runs a node's execute() outside n8n: a small IExecuteFunctions with the parameters, input items and
// credentials given, whose httpRequest makes real HTTP calls with fetch. The real n8n runs are in test/e2e.
import type { IExecuteFunctions, IHttpRequestOptions, INode, INodeExecutionData, INodeType } from 'n8n-workflow';

export interface RunOptions {
  parameters: Record<string, unknown>;
  items: INodeExecutionData[];
  credentials: Record<string, Record<string, unknown>>;
  continueOnFail?: boolean;
}

function readPath(source: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined), source);
}

async function httpRequest(options: IHttpRequestOptions) {
  const response = await fetch(options.url, {
    method: options.method,
    headers: options.headers as Record<string, string>,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.timeout ? AbortSignal.timeout(options.timeout) : undefined,
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  if (!options.ignoreHttpStatusErrors && !response.ok) throw new Error(`HTTP ${response.status}`);
  return options.returnFullResponse ? { statusCode: response.status, body, headers: {} } : body;
}

export async function runNode(nodeType: INodeType, run: RunOptions): Promise<INodeExecutionData[][]> {
  const node: INode = {
    id: 'judge-under-test',
    name: 'Judge',
    type: 'n8n-nodes-judge-assistant.judge',
    typeVersion: 1,
    position: [0, 0],
    parameters: run.parameters as INode['parameters'],
  };
  const context = {
    getNode: () => node,
    getInputData: () => run.items,
    getNodeParameter: (name: string, _itemIndex: number, fallback?: unknown) => {
      const value = readPath(run.parameters, name);
      return value === undefined ? fallback : value;
    },
    getCredentials: async (type: string) => {
      const credential = run.credentials[type];
      if (!credential) throw new Error(`Node does not have any credentials set for "${type}"`);
      return credential;
    },
    continueOnFail: () => run.continueOnFail ?? false,
    helpers: { httpRequest },
  } as unknown as IExecuteFunctions;
  return (await nodeType.execute!.call(context)) as INodeExecutionData[][];
}
