// Runs a node's execute() outside n8n: a small IExecuteFunctions with the parameters (one set for every item, or
// one per item, as n8n resolves expressions per item), input items, credentials by type, "Continue On Fail", and a
// helpers.httpRequest that makes real HTTP calls with fetch. The real n8n runs are in test/e2e.
import type {
  IExecuteFunctions,
  IExecuteResponsePromiseData,
  IHttpRequestOptions,
  INode,
  INodeExecutionData,
  INodeType,
  IVersionedNodeType,
} from 'n8n-workflow';

export type Parameters = Record<string, unknown>;

export type CredentialReader = (type: string, itemIndex?: number) => object | Promise<object>;

export interface ExecuteOptions {
  /** The node's parameters: one set for every item, or one set per item. */
  parameters?: Parameters | Parameters[];
  /** The input items; by default one empty item per parameter set (one item for a single set). */
  items?: INodeExecutionData[];
  /** Credentials by type (a missing type fails like n8n does), or a function answering each read. */
  credentials?: Record<string, object | undefined> | CredentialReader;
  /** The credentials set on the node, with their ids; n8n has ids only for stored credentials. */
  nodeCredentials?: INode['credentials'];
  continueOnFail?: boolean;
  workflowId?: string;
  /** The execution's cancel signal, as n8n gives it (aborted when the execution is stopped). */
  cancelSignal?: AbortSignal;
}

/**
 * The fake, with what it saw: every credential read, as `type` or `type#itemIndex`, and every answer a node sent to
 * the webhook call (`sendResponse`, as Respond to Webhook does).
 */
export type FakeExecuteFunctions = IExecuteFunctions & {
  credentialReads: string[];
  responses: IExecuteResponsePromiseData[];
};

function readPath(source: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => {
    return value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  }, source);
}

/** n8n's helpers.httpRequest, with fetch: JSON bodies, full responses and status errors as options ask. */
export async function httpRequest(options: IHttpRequestOptions): Promise<unknown> {
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
  if (!options.ignoreHttpStatusErrors && !response.ok) {
    // n8n's errors carry the status as httpCode.
    throw Object.assign(new Error(`HTTP ${response.status}`), { httpCode: String(response.status) });
  }
  const headers = Object.fromEntries(response.headers);
  return options.returnFullResponse ? { statusCode: response.status, body, headers } : body;
}

/** How n8n's credential types authenticate a request (their `authenticate` headers), for the types the nodes use. */
const AUTHENTICATE_HEADERS: Record<string, (credential: Record<string, unknown>) => Record<string, string>> = {
  n8nApi: (credential) => ({ 'X-N8N-API-KEY': String(credential.apiKey) }),
};

/** The node type n8n would run: the default version of a versioned node. */
export function nodeVersion(nodeType: INodeType | IVersionedNodeType): INodeType {
  return 'nodeVersions' in nodeType ? nodeType.getNodeType() : nodeType;
}

export function executeFunctions(nodeType: INodeType, options: ExecuteOptions = {}): FakeExecuteFunctions {
  const parameterSets = Array.isArray(options.parameters) ? options.parameters : [options.parameters ?? {}];
  const items = options.items ?? parameterSets.map(() => ({ json: {} }));
  const parametersOf = (itemIndex: number) => parameterSets[Array.isArray(options.parameters) ? itemIndex : 0];
  const node: INode = {
    id: 'node-under-test',
    name: nodeType.description.defaults.name ?? nodeType.description.displayName,
    type: `n8n-nodes-judge-assistant.${nodeType.description.name}`,
    typeVersion: 1,
    position: [0, 0],
    parameters: parameterSets[0] as INode['parameters'],
    credentials: options.nodeCredentials,
  };
  const credentialReads: string[] = [];
  const credentials = options.credentials ?? {};
  const readCredential: CredentialReader =
    typeof credentials === 'function'
      ? credentials
      : (type) => {
          const credential = credentials[type];
          if (!credential) throw new Error(`Node does not have any credentials set for "${type}"`);
          return credential;
        };
  const responses: IExecuteResponsePromiseData[] = [];
  const context = {
    credentialReads,
    responses,
    sendResponse: async (response: IExecuteResponsePromiseData) => {
      responses.push(response);
    },
    getNode: () => node,
    getWorkflow: () => ({ id: options.workflowId ?? 'workflow-under-test', active: false }),
    getInputData: () => items,
    getNodeParameter: (name: string, itemIndex: number, fallback?: unknown) => {
      const value = readPath(parametersOf(itemIndex), name);
      return value === undefined ? fallback : value;
    },
    getCredentials: async (type: string, itemIndex?: number) => {
      credentialReads.push(itemIndex === undefined ? type : `${type}#${itemIndex}`);
      return await readCredential(type, itemIndex);
    },
    continueOnFail: () => options.continueOnFail ?? false,
    getExecutionCancelSignal: () => options.cancelSignal,
    // As n8n-core's base-execute-context: the handler runs once when the signal aborts.
    onExecutionCancellation: (handler: () => unknown) =>
      options.cancelSignal?.addEventListener('abort', () => void handler(), { once: true }),
    helpers: {
      httpRequest,
      httpRequestWithAuthentication: async (type: string, request: IHttpRequestOptions) => {
        const authenticate = AUTHENTICATE_HEADERS[type];
        if (!authenticate) throw new Error(`the fake context cannot authenticate "${type}"`);
        const credential = (await readCredential(type)) as Record<string, unknown>;
        return await httpRequest({ ...request, headers: { ...request.headers, ...authenticate(credential) } });
      },
    },
  };
  return context as unknown as FakeExecuteFunctions;
}

/** Runs the node (its default version) over the items and returns its outputs. */
export async function runNode(
  nodeType: INodeType | IVersionedNodeType,
  options: ExecuteOptions = {},
): Promise<INodeExecutionData[][]> {
  const version = nodeVersion(nodeType);
  return (await version.execute!.call(executeFunctions(version, options))) as INodeExecutionData[][];
}
