// n8n's queue mode, the scale-out path (docs/RUNTIME.md): the real n8n main instance and one `n8n worker`, with
// Debian's redis-server, natively. A production webhook call is put on the queue by the main instance and run by the
// worker: the execution id n8n saved is the one the worker's log says it ran, and the main instance's log does not.
// A second run with the worker stopped waits in Redis until a worker is back.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, chmodSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../scripts/runtime/process';
import { startStack, type Stack } from '../../scripts/runtime/stack';

const WORKFLOW_ID = 'queueModeTest001';
const work = mkdtempSync(path.join(tmpdir(), 'queue-mode-'));
let stack: Stack;

/** A webhook answering with its last node (a Set node), every execution saved. */
function webhookWorkflow(): Record<string, unknown> {
  return {
    id: WORKFLOW_ID,
    name: 'Queue mode test: echo',
    meta: { version: 1 },
    settings: { executionOrder: 'v1', saveDataSuccessExecution: 'all' },
    nodes: [
      {
        id: '0b0c7f5e-0000-4000-8000-00000000a001',
        name: 'On POST /queue-echo',
        type: 'n8n-nodes-base.webhook',
        typeVersion: 2,
        position: [0, 0],
        webhookId: '0b0c7f5e-0000-4000-8000-00000000a0ff',
        parameters: { httpMethod: 'POST', path: 'queue-echo', responseMode: 'lastNode', options: {} },
      },
      {
        id: '0b0c7f5e-0000-4000-8000-00000000a002',
        name: 'Echo the Word',
        type: 'n8n-nodes-base.set',
        typeVersion: 3.4,
        position: [220, 0],
        parameters: {
          assignments: {
            assignments: [{ id: 'w', name: 'echo', type: 'string', value: '={{ $json.body.word }}' }],
          },
          options: {},
        },
      },
    ],
    connections: { 'On POST /queue-echo': { main: [[{ node: 'Echo the Word', type: 'main', index: 0 }]] } },
  };
}

async function post(word: string, signal?: AbortSignal): Promise<Response> {
  return stack.webhook('queue-echo', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ word }),
    signal,
  });
}

/** One inline Redis command on the stack's Redis; its one-line answer (e.g. ":1"). */
async function redisCommand(command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: stack.queue!.redis.host, port: stack.queue!.redis.port });
    let answer = '';
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      answer += chunk.toString('utf8');
      if (answer.includes('\r\n')) {
        socket.destroy();
        resolve(answer.split('\r\n')[0]);
      }
    });
    socket.write(`${command}\r\n`);
  });
}

async function executionIds(): Promise<string[]> {
  const page = await stack.api<{ data: Array<{ id: string | number }> }>(`/executions?workflowId=${WORKFLOW_ID}`);
  return page.data.map((execution) => String(execution.id));
}

beforeAll(async () => {
  chmodSync(work, 0o755);
  const workflows = path.join(work, 'workflows');
  mkdirSync(workflows);
  writeFileSync(path.join(workflows, `${WORKFLOW_ID}.json`), JSON.stringify(webhookWorkflow(), null, 2));
  stack = await startStack({
    queue: true,
    userFolder: path.join(work, 'n8n'),
    workflowDirs: [workflows],
    credentialDirs: [],
    activate: 'triggered',
    browser: false,
  });
});

afterAll(async () => {
  await stack?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('queue mode: Redis and one worker', () => {
  it('runs a production webhook execution on the worker, not on the main instance', async () => {
    expect(stack.env.EXECUTIONS_MODE).toBe('queue');
    const response = await post('hello-queue');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ echo: 'hello-queue' });
    const [id] = await executionIds();
    expect(id).toBeDefined();
    const workerLog = readFileSync(stack.queue!.workerLogFile, 'utf8');
    expect(workerLog).toContain(`Worker started execution ${id} `);
    expect(workerLog).toContain(`Worker finished execution ${id} `);
    expect(readFileSync(stack.logFile, 'utf8')).not.toContain(`started execution ${id} `);
  });

  it('keeps an execution queued while no worker runs, and a new worker runs it', async () => {
    process.kill(stack.queue!.workerPid(), 'SIGTERM');
    await waitFor(
      async () => {
        try {
          process.kill(stack.queue!.workerPid(), 0);
          return false;
        } catch {
          return true;
        }
      },
      { timeoutMs: 30_000, what: 'the worker to stop' },
    );
    const before = await executionIds();
    // The main instance queues it and waits for a worker: nothing answers within 5 s, and the job waits in Redis.
    const waiting = post('while-no-worker', AbortSignal.timeout(5_000));
    await expect(waiting).rejects.toThrow(/aborted|timeout/i);
    expect(await redisCommand('LLEN bull:jobs:wait')).toBe(':1');

    await stack.queue!.restartWorker();
    let ran: string | undefined;
    await waitFor(
      async () => {
        ran = (await executionIds()).find((id) => !before.includes(id));
        return ran !== undefined && (await stack.api<{ status: string }>(`/executions/${ran}`)).status === 'success';
      },
      { timeoutMs: 60_000, what: 'the queued execution to finish on the new worker' },
    );
    expect(readFileSync(stack.queue!.workerLogFile, 'utf8')).toContain(`Worker finished execution ${ran} `);
    expect(await redisCommand('LLEN bull:jobs:wait')).toBe(':0');
  });
});
