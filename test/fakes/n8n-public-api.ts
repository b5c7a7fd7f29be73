// A loopback stand-in for the part of n8n's public API (/api/v1) that installing experts and building tools use,
// speaking its real shapes: workflows by id (GET, POST, DELETE), PUT …/tags with [{id}], POST …/publish and
// …/unpublish, GET /credentials (names and types, no secrets); every call needs the X-N8N-API-KEY header. It also
// keeps the main agent's workflow. The e2e tests use the real n8n instead.
import { randomBytes } from 'node:crypto';
import { listenOnLoopback, readBody, sendJson, type RunningServer } from './http-util';

export interface StoredWorkflow {
  id: string;
  name: string;
  nodes: unknown[];
  connections: unknown;
  settings?: unknown;
  active: boolean;
  tags: Array<{ id: string }>;
}

export interface N8nPublicApiFake extends RunningServer {
  /** The base URL as the "n8n API" credential holds it: http://127.0.0.1:<port>/api/v1. */
  baseUrl: string;
  workflows: Map<string, StoredWorkflow>;
  /** Which calls n8n answered, e.g. "POST /workflows". */
  calls: string[];
  /** The next publish fails with this status (once). */
  failNextPublish(status: number): void;
}

export interface StoredCredential {
  id: string;
  name: string;
  type: string;
}

export async function startN8nPublicApiFake(
  apiKey: string,
  seed: StoredWorkflow[] = [],
  credentials: StoredCredential[] = [],
): Promise<N8nPublicApiFake> {
  const workflows = new Map(seed.map((workflow) => [workflow.id, workflow]));
  const calls: string[] = [];
  let publishFailure: number | null = null;
  /** Unpublishing finishes in the background in n8n: the first delete after it is refused once. */
  const unpublishing = new Set<string>();
  const server = await listenOnLoopback(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.headers['x-n8n-api-key'] !== apiKey) {
      sendJson(res, 401, { message: "'X-N8N-API-KEY' header required" });
      return;
    }
    const route = url.pathname.replace(/^\/api\/v1/, '');
    const body = req.method === 'GET' || req.method === 'DELETE' ? '' : await readBody(req);
    const [, , id, action] = route.split('/');
    if (req.method === 'GET' && route === '/credentials') {
      calls.push('GET /credentials');
      sendJson(res, 200, { data: credentials, nextCursor: null });
      return;
    }
    calls.push(`${req.method} /workflows${id ? '/:id' : ''}${action ? `/${action}` : ''}`);
    if (!route.startsWith('/workflows')) {
      sendJson(res, 404, { message: 'not found' });
      return;
    }
    if (req.method === 'POST' && !id) {
      const workflow = JSON.parse(body) as StoredWorkflow;
      const extra = Object.keys(workflow).filter((key) => !['name', 'nodes', 'connections', 'settings'].includes(key));
      if (!workflow.name || !Array.isArray(workflow.nodes) || extra.length > 0) {
        sendJson(res, 400, { message: `request/body must NOT have additional properties: ${extra.join(', ')}` });
        return;
      }
      const stored = { ...workflow, id: randomBytes(8).toString('hex'), active: false, tags: [] };
      workflows.set(stored.id, stored);
      sendJson(res, 200, stored);
      return;
    }
    const workflow = id ? workflows.get(decodeURIComponent(id)) : undefined;
    if (!workflow) {
      sendJson(res, 404, { message: 'Not Found' });
      return;
    }
    if (req.method === 'GET' && !action) sendJson(res, 200, workflow);
    else if (req.method === 'DELETE' && !action) {
      if (workflow.active) {
        sendJson(res, 409, { message: 'Cannot delete a published workflow. Unpublish it before deleting.' });
        return;
      }
      if (unpublishing.delete(workflow.id)) {
        sendJson(res, 409, { message: 'Workflow is still being unpublished. Please try again in a few moments.' });
        return;
      }
      workflows.delete(workflow.id);
      sendJson(res, 200, workflow);
    } else if (req.method === 'PUT' && action === 'tags') {
      workflow.tags = JSON.parse(body) as Array<{ id: string }>;
      sendJson(res, 200, workflow.tags);
    } else if (req.method === 'POST' && action === 'publish') {
      if (publishFailure !== null) {
        const status = publishFailure;
        publishFailure = null;
        sendJson(res, status, { message: 'Workflow could not be activated' });
        return;
      }
      workflow.active = true;
      sendJson(res, 200, workflow);
    } else if (req.method === 'POST' && action === 'unpublish') {
      workflow.active = false;
      unpublishing.add(workflow.id);
      sendJson(res, 200, workflow);
    } else sendJson(res, 405, { message: 'method not allowed' });
  });
  return {
    ...server,
    baseUrl: `${server.url}/api/v1`,
    workflows,
    calls,
    failNextPublish: (status) => {
      publishFailure = status;
    },
  };
}
