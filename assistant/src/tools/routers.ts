// One router tool per registry group (issue 41, part 2): the main agent binds 7 tools instead of one per registry
// tool, each taking `action` (one of its group's tools) and `args` (that tool's arguments as a JSON object). Its
// description lists each action with its argument names (`?`: optional) and the registry's summary; checkToolCall
// checks a call against the tool's arguments (arguments.ts) before the router workflow dispatches it.
import { AssistantInputError } from '../errors';
import { TOOL_CALLS, type ToolArgument, type ToolCallSpec } from './arguments';
import { TOOL_GROUPS, TOOL_REGISTRY, type AssistantTool, type ToolGroup } from './registry';

export interface ToolRouter {
  /** The router tool's name, which is what the model calls. */
  name: string;
  /** Its workflow: id and file in workflows/. */
  workflow: { id: string; file: string };
  /** The first sentence of its description. */
  intro: string;
}

export const TOOL_ROUTERS: Readonly<Record<ToolGroup, ToolRouter>> = {
  'memory and people': {
    name: 'memory',
    workflow: { id: 'asstRouterMemory', file: 'assistant-tools-memory.json' },
    intro: 'Memories and the knowledge graph of people and things.',
  },
  'tasks and reminders': {
    name: 'tasks',
    workflow: { id: 'asstRouterTasks1', file: 'assistant-tools-tasks.json' },
    intro: "Tasks, reminders and recurring actions; pass times in the user's own words.",
  },
  web: {
    name: 'web',
    workflow: { id: 'asstRouterWeb001', file: 'assistant-tools-web.json' },
    intro: 'The web: search, and read pages (cite sources).',
  },
  browser: {
    name: 'browser',
    workflow: { id: 'asstRouterBrowsr', file: 'assistant-tools-browser.json' },
    intro: "The user's own browser, to act on a page (refs from the last snapshot); ask_user asks the user.",
  },
  checks: {
    name: 'checks',
    workflow: { id: 'asstRouterChecks', file: 'assistant-tools-checks.json' },
    intro: 'Background checks that watch a page, feed, search or value.',
  },
  'experts and tool building': {
    name: 'experts',
    workflow: { id: 'asstRouterExpert', file: 'assistant-tools-experts.json' },
    intro: 'Delegate to experts; build and run HTTP API tools.',
  },
  'settings and failures': {
    name: 'settings',
    workflow: { id: 'asstRouterSettng', file: 'assistant-tools-settings.json' },
    intro: "The user's preferences, failures and spending; pairing codes and the people on the install.",
  },
};

/** The registry's tools of a group, in registry order. */
export const groupTools = (group: ToolGroup): AssistantTool[] => TOOL_REGISTRY.filter((tool) => tool.group === group);

/** What the model passes to a tool (arguments.ts); every registry tool has one. */
export function toolCallSpec(name: string): ToolCallSpec {
  const spec = TOOL_CALLS[name];
  if (!spec) throw new AssistantInputError('action', `no argument spec for the tool "${name}"`);
  return spec;
}

const argumentList = (args: readonly ToolArgument[]): string =>
  args.map((arg) => `${arg.name}${arg.required ? '' : '?'}`).join(', ');

/** The router's description for the model: its intro and one line per action. */
export function routerDescription(group: ToolGroup): string {
  const lines = groupTools(group).map(
    (tool) => `${tool.name}(${argumentList(toolCallSpec(tool.name).arguments)}): ${tool.summary}`,
  );
  return [`${TOOL_ROUTERS[group].intro} Actions and their args (? optional):`, ...lines].join('\n');
}

/** The router of a tool's group, and the tool; undefined for a name that is no registry tool. */
export function routerOf(toolName: string): { router: ToolRouter; tool: AssistantTool } | undefined {
  const tool = TOOL_REGISTRY.find((entry) => entry.name === toolName);
  return tool && { router: TOOL_ROUTERS[tool.group], tool };
}

/** A call the router passes on: the action and its arguments, converted, every argument present. */
export interface CheckedToolCall {
  action: string;
  args: Record<string, string | number>;
}

const usage = (tool: string, spec: ToolCallSpec): string =>
  spec.arguments.length === 0
    ? `${tool} takes no arguments`
    : `${tool} takes ${spec.arguments.map((arg) => `${arg.name} (${arg.type}${arg.required ? '' : ', optional'}: ${arg.description})`).join('; ')}`;

/** One argument converted to its type, or an error naming the action and the field. */
function convert(tool: string, arg: ToolArgument, value: unknown): string | number {
  const field = `args.${arg.name}`;
  if (arg.type === 'number') {
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isFinite(number)) {
      throw new AssistantInputError(
        field,
        `must be a number (${arg.description}), not ${JSON.stringify(value)}`,
        `${tool}: ${field}`,
      );
    }
    return number;
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  // A JSON argument given as an object (build_tool's spec, run_tool's input) is passed on as its JSON text.
  return JSON.stringify(value);
}

/**
 * Checks a router call: `action` one of the group's tools, `args` an object with each required argument and no
 * unknown one. Numbers given as text are converted, text given as a number or an object becomes text, and a missing
 * optional argument is passed empty (0 for a number), as the model filled it before the routers.
 */
export function checkToolCall(group: ToolGroup, action: unknown, args: unknown): CheckedToolCall {
  const router = TOOL_ROUTERS[group];
  if (!router) throw new AssistantInputError('group', `must be one of ${TOOL_GROUPS.join(', ')}`);
  const actions = groupTools(group).map((tool) => tool.name);
  if (typeof action !== 'string' || !actions.includes(action)) {
    throw new AssistantInputError(
      'action',
      `${router.name} has no action ${JSON.stringify(action)}; its actions are ${actions.join(', ')}`,
    );
  }
  const spec = toolCallSpec(action);
  const given = parseArgs(action, args);
  for (const name of Object.keys(given)) {
    if (!spec.arguments.some((arg) => arg.name === name)) {
      throw new AssistantInputError(
        `args.${name}`,
        `is not an argument of ${action}; ${usage(action, spec)}`,
        `${action}: args.${name}`,
      );
    }
  }
  const checked: Record<string, string | number> = {};
  for (const arg of spec.arguments) {
    const value = given[arg.name];
    if (value === undefined || value === null) {
      if (arg.required) {
        throw new AssistantInputError(
          `args.${arg.name}`,
          `is required; ${usage(action, spec)}`,
          `${action}: args.${arg.name}`,
        );
      }
      checked[arg.name] = arg.type === 'number' ? 0 : '';
    } else checked[arg.name] = convert(action, arg, value);
  }
  return { action, args: checked };
}

/** The args as an object: an object, a JSON object's text, or nothing (no arguments). */
function parseArgs(action: string, args: unknown): Record<string, unknown> {
  if (args === undefined || args === null || args === '') return {};
  let value = args;
  if (typeof args === 'string') {
    try {
      value = JSON.parse(args);
    } catch {
      throw new AssistantInputError(
        'args',
        `must be a JSON object of ${action}'s arguments, not ${JSON.stringify(args)}`,
        `${action}: args`,
      );
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AssistantInputError(
      'args',
      `must be a JSON object of ${action}'s arguments, not ${JSON.stringify(args)}`,
      `${action}: args`,
    );
  }
  return value as Record<string, unknown>;
}
