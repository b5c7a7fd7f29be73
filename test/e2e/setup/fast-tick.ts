// A fast copy of the minute tick, for suites that only need ticks to happen: the shipped tick workflow with its
// Schedule Trigger set to every few seconds and its Start Tick's Tick Seconds to match. The shipped workflow stays
// active beside it with its real one-minute trigger, so at every whole minute two ticks run at the same moment.
import type { E2EStack } from './harness';

export const TICK_WORKFLOW = 'assistantTick001';

interface WorkflowBody {
  nodes: Array<{ name: string; type: string; parameters: Record<string, unknown> }>;
  connections: unknown;
}

/** The tick workflow's nodes with the trigger every `seconds` and Start Tick recording ticks at that step. */
export function fastTickNodes(tick: WorkflowBody, seconds: number): WorkflowBody['nodes'] {
  const trigger = tick.nodes.filter((node) => node.type === 'n8n-nodes-base.scheduleTrigger');
  const start = tick.nodes.filter((node) => node.name === 'Start Tick');
  if (trigger.length !== 1 || start.length !== 1) {
    throw new Error(`${TICK_WORKFLOW} must have one Schedule Trigger and one Start Tick node`);
  }
  return tick.nodes.map((node) => {
    if (node === trigger[0]) {
      return { ...node, parameters: { rule: { interval: [{ field: 'seconds', secondsInterval: seconds }] } } };
    }
    if (node === start[0]) return { ...node, parameters: { ...node.parameters, tickSeconds: seconds } };
    return node;
  });
}

/** Creates and activates the fast tick; the function it returns removes it (call it in afterAll). */
export async function startFastTick(stack: E2EStack, name: string, seconds = 5): Promise<() => Promise<void>> {
  const tick = await stack.api<WorkflowBody>(`/workflows/${TICK_WORKFLOW}`);
  const fast = await stack.api<{ id: string }>('/workflows', {
    method: 'POST',
    body: {
      // Not named "Assistant: …": the reliability test holds every assistant workflow to its execution timeout.
      name,
      nodes: fastTickNodes(tick, seconds),
      connections: tick.connections,
      settings: { executionOrder: 'v1', executionTimeout: 120, saveDataSuccessExecution: 'none' },
    },
  });
  await stack.api(`/workflows/${fast.id}/activate`, { method: 'POST' });
  return async () => {
    // Stopped for the files that run after this one (a failure here fails the file).
    await stack.api(`/workflows/${fast.id}/deactivate`, { method: 'POST' });
    await stack.api(`/workflows/${fast.id}/archive`, { method: 'POST' }).catch(() => undefined);
    await stack.api(`/workflows/${fast.id}`, { method: 'DELETE' }).catch(() => undefined);
  };
}
