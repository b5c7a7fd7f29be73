// Scripted tool calls of the main agent by registry tool name (issue 41, part 2): the agent offers the model one
// router tool per registry group, so a call of `recall_memories` is a call of the `memory` router with
// {action: 'recall_memories', args: '<the arguments as JSON text>'}. The router and action come from the registry
// (assistant/src/tools/routers.ts).
import type { ScriptedToolCall, ScriptStep } from '../../fakes/openai-chat';
import { routerOf } from '../../../assistant/src/tools/routers';

/** The router tool that reaches a registry tool; a name that is no registry tool is refused, naming it. */
export function routerFor(tool: string): string {
  const found = routerOf(tool);
  if (!found) throw new Error(`"${tool}" is not a tool of the registry (assistant/src/tools/registry.ts)`);
  return found.router.name;
}

/** One call of a registry tool through its router. */
export const viaRouter = (tool: string, args: Record<string, unknown> = {}): ScriptedToolCall => ({
  name: routerFor(tool),
  arguments: { action: tool, args: JSON.stringify(args) },
});

/** A script step calling one registry tool through its router. */
export const callTool = (tool: string, args: Record<string, unknown> = {}): ScriptStep => ({
  tool_calls: [viaRouter(tool, args)],
});

/** What an injected page says after "CALL " to make the gullible fake (its `obey` step) call a registry tool. */
export const routerOrder = (tool: string, args: Record<string, unknown> = {}): string =>
  `${routerFor(tool)} ${JSON.stringify({ action: tool, args: JSON.stringify(args) })}`;
