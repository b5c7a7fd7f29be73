// The main agent's tools, one entry each: the name its tool node has in workflows/assistant-agent.json, the workflow
// that node runs, a group, and its effect with the approval that effect asks for by default. Everything that lists the
// assistant's tools (the expert catalogue's rules, built tools' reserved names, the docs' table) reads this list;
// assistant/test/tools/registry.test.ts keeps it equal to the agent workflow's tool nodes and to docs/ASSISTANT.md.
// The approvals are enforced by the approval gate (safety/tool-approval.ts, workflows/assistant-approval-gate.json)
// for the tools whose workflow runs it, and by their own workflow for the tools that ask themselves.

export const TOOL_GROUPS = [
  'memory and people',
  'tasks and reminders',
  'web',
  'browser',
  'checks',
  'experts and tool building',
  'settings and failures',
] as const;
export type ToolGroup = (typeof TOOL_GROUPS)[number];

/**
 * What a tool does to the world: `read` changes nothing that lasts; `write` changes the user's own data in the
 * assistant; `external` acts outside the assistant in the user's name (a site's form or button, an API call);
 * `destructive` removes data or parts of the assistant for good, or switches them off.
 */
export const TOOL_EFFECTS = ['read', 'write', 'external', 'destructive'] as const;
export type ToolEffect = (typeof TOOL_EFFECTS)[number];

/** Whom a tool call waits for before it runs; `judge`: the Judge decides whether the user is asked. */
export const TOOL_APPROVALS = ['never', 'ask-user', 'ask-operator', 'judge'] as const;
export type ToolApproval = (typeof TOOL_APPROVALS)[number];

/** The approval each effect asks for unless its tool says otherwise. */
export const DEFAULT_APPROVAL: Readonly<Record<ToolEffect, ToolApproval>> = {
  read: 'never',
  write: 'never',
  external: 'ask-user',
  destructive: 'ask-operator',
};

export interface AssistantTool {
  /** The tool node's name in the agent workflow, which is what the model calls. */
  name: string;
  /** The workflow the tool node runs: its id and its file in workflows/. */
  workflow: { id: string; file: string };
  group: ToolGroup;
  effect: ToolEffect;
  /** DEFAULT_APPROVAL of its effect, or the tool's own rule where it already asks today. */
  approval: ToolApproval;
  /** What it does, in a few words (the docs' table). */
  summary: string;
  /** Its workflow asks on its own (with its own question); the approval gate leaves it alone. */
  asksItself?: boolean;
  /** Its result carries text from outside (a page, search results, a site's or a tool's answer), marked untrusted. */
  bringsOutsideText?: boolean;
  /** It fetches the URL it is given (data can leave through a GET): held when the turn carries outside text. */
  fetchesUrl?: boolean;
  /** Its rule applies only to some calls (the approval gate reads which from the call); the rest run at once. */
  asksOnlyWhen?: AskCondition;
}

/** The calls a rule applies to, for the tools whose rule is not for every call. */
export type AskCondition = 'method-not-get' | 'sends-form';
export const ASK_CONDITION_WORDS: Readonly<Record<AskCondition, string>> = {
  'method-not-get': "when the built tool's method is not GET",
  'sends-form': 'when the click sends a form (a GET only after outside text; never a sign-in)',
};

type ToolEntry = Omit<AssistantTool, 'approval'> & { approval?: ToolApproval };

/** A tool's own rule: an approval other than its effect's default, or one its workflow asks itself. */
type OwnRule = ToolApproval | { asksItself: ToolApproval };

const tool = (
  name: string,
  workflowId: string,
  file: string,
  group: ToolGroup,
  effect: ToolEffect,
  summary: string,
  rule?: OwnRule,
): ToolEntry => ({
  name,
  workflow: { id: workflowId, file },
  group,
  effect,
  summary,
  ...(typeof rule === 'object' ? { approval: rule.asksItself, asksItself: true } : { approval: rule }),
});

const M: ToolGroup = 'memory and people';
const T: ToolGroup = 'tasks and reminders';
const B: ToolGroup = 'browser';
const C: ToolGroup = 'checks';
const E: ToolGroup = 'experts and tool building';
const S: ToolGroup = 'settings and failures';

// prettier-ignore
const ENTRIES: readonly ToolEntry[] = [
  tool('remember_memory', 'asstToolRemember', 'assistant-tool-remember.json', M, 'write', 'store a lasting fact about the user'),
  tool('recall_memories', 'asstToolRecall01', 'assistant-tool-recall.json', M, 'read', 'find remembered facts by words, a question or a name'),
  tool('update_memory', 'asstToolUpdMem01', 'assistant-tool-update-memory.json', M, 'write', "replace a remembered fact's text"),
  tool('forget_memory', 'asstToolForget01', 'assistant-tool-forget-memory.json', M, 'write', 'delete one remembered fact (and the executions holding it)'),
  tool('upsert_entity', 'asstToolEntity01', 'assistant-tool-upsert-entity.json', M, 'write', 'create or update a person, company or thing in the graph'),
  tool('relate_entities', 'asstToolRelate01', 'assistant-tool-relate-entities.json', M, 'write', 'record a relation between two entities'),
  tool('query_graph', 'asstToolGraphQ01', 'assistant-tool-query-graph.json', M, 'read', "an entity's relations and the memories that mention it"),
  tool('memory_panel', 'asstToolMemPanel', 'assistant-tool-memory-panel.json', M, 'write', 'list what is kept by id, pin, restore a folded memory, what was tidied'),
  tool('forget_everything', 'asstToolForgetAl', 'assistant-tool-forget-everything.json', M, 'destructive', 'delete everything known about the user, after they confirmed', { asksItself: 'ask-user' }),
  tool('create_task', 'asstToolTaskNew1', 'assistant-tool-create-task.json', T, 'write', "create a task, its due time in the user's own words"),
  tool('list_tasks', 'asstToolTaskLst1', 'assistant-tool-list-tasks.json', T, 'read', 'list tasks: active, overdue, due today or all'),
  tool('update_task', 'asstToolTaskUpd1', 'assistant-tool-update-task.json', T, 'write', "change a task's title, due time (the user's words) or priority"),
  tool('complete_task', 'asstToolTaskDone', 'assistant-tool-complete-task.json', T, 'write', 'mark a task done'),
  tool('delete_task', 'asstToolTaskDel1', 'assistant-tool-delete-task.json', T, 'write', 'delete a task'),
  tool('set_reminder', 'asstToolRemindSt', 'assistant-tool-set-reminder.json', T, 'write', "set a reminder from the user's own words for when"),
  tool('list_reminders', 'asstToolRemindLs', 'assistant-tool-list-reminders.json', T, 'read', 'list reminders with their due times'),
  tool('cancel_reminder', 'asstToolRemindCx', 'assistant-tool-cancel-reminder.json', T, 'write', 'cancel a reminder'),
  tool('schedule_action', 'asstToolActionSt', 'assistant-tool-schedule-action.json', T, 'write', 'schedule a recurring action (docs/SCHEDULING.md)'),
  tool('list_actions', 'asstToolActionLs', 'assistant-tool-list-actions.json', T, 'read', 'list recurring actions with their next runs'),
  tool('change_action', 'asstToolActionCh', 'assistant-tool-change-action.json', T, 'write', 'pause, resume or delete a recurring action'),
  tool('update_preferences', 'asstToolPrefsUpd', 'assistant-tool-update-preferences.json', S, 'write', 'time zone, locale, quiet hours, daily briefing time'),
  tool('list_failures', 'asstToolFailures', 'assistant-tool-list-failures.json', S, 'read', 'what failed since a time, in plain words'),
  tool('spending', 'asstToolSpending', 'assistant-tool-spending.json', S, 'read', 'what model calls cost today, this week or this month, and on what'),
  tool('issue_pairing_code', 'asstToolPairCode', 'assistant-tool-issue-pairing-code.json', S, 'write', 'issue a one-time pairing code: a new person (owner) or another channel of yours', 'ask-user'),
  tool('list_people', 'asstToolPeopleLs', 'assistant-tool-list-people.json', S, 'read', 'list the people on the install and who may talk on each channel (owner)'),
  tool('remove_person', 'asstToolPeopleRm', 'assistant-tool-remove-person.json', S, 'destructive', 'remove a person: they can no longer talk; their data kept or purged (owner)'),
  tool('set_dm_policy', 'asstToolDmPolicy', 'assistant-tool-set-dm-policy.json', S, 'destructive', 'set who may talk on a channel: the owner, pairing by code, an allow list (owner)'),
  tool('web_search', 'asstToolWebSrch1', 'assistant-tool-web-search.json', 'web', 'read', 'search the web (docs/WEB.md)'),
  tool('read_page', 'asstToolReadPage', 'assistant-tool-read-page.json', 'web', 'read', 'read a web page or PDF as clean text'),
  tool('add_check', 'asstToolAddCheck', 'assistant-tool-add-check.json', C, 'write', 'watch a page, feed, search or value (docs/CHECKS.md)'),
  tool('list_checks', 'asstToolListChks', 'assistant-tool-list-checks.json', C, 'read', 'list background checks'),
  tool('pause_check', 'asstToolPauseChk', 'assistant-tool-pause-check.json', C, 'write', 'pause or resume a background check'),
  tool('delete_check', 'asstToolDelCheck', 'assistant-tool-delete-check.json', C, 'write', 'delete a background check'),
  tool('check_history', 'asstToolChkHist1', 'assistant-tool-check-history.json', C, 'read', "a background check's recent runs"),
  tool('browser_open', 'asstToolBrwOpen1', 'assistant-tool-browser-open.json', B, 'read', "open a page in the user's own browser (docs/BROWSER.md)"),
  tool('browser_snapshot', 'asstToolBrwSnap1', 'assistant-tool-browser-snapshot.json', B, 'read', "the page's text and numbered elements"),
  tool('browser_fill', 'asstToolBrwFill1', 'assistant-tool-browser-fill.json', B, 'external', 'type a value or a stored login into a field', 'never'),
  tool('browser_click', 'asstToolBrwClik1', 'assistant-tool-browser-click.json', B, 'external', 'click an element of the page (a form it sends is named)'),
  tool('browser_select', 'asstToolBrwSel01', 'assistant-tool-browser-select.json', B, 'external', 'choose an option of a select element', 'never'),
  tool('browser_screenshot', 'asstToolBrwShot1', 'assistant-tool-browser-screenshot.json', B, 'read', 'send the user a screenshot of the page'),
  tool('browser_close', 'asstToolBrwClos1', 'assistant-tool-browser-close.json', B, 'write', 'close the browser task (sign-ins are kept)'),
  tool('ask_user', 'asstAskUser00001', 'assistant-ask-user.json', B, 'read', 'ask the user a question and wait for the answer'),
  tool('ask_researcher', 'asstExpertResrch', 'assistant-expert-researcher.json', E, 'read', 'delegate research to the Researcher (docs/EXPERTS.md)'),
  tool('ask_planner', 'asstExpertPlannr', 'assistant-expert-planner.json', E, 'write', 'delegate planning to the Planner'),
  tool('ask_analyst', 'asstExpertAnalst', 'assistant-expert-analyst.json', E, 'read', 'delegate ranking or filtering a list to the Analyst'),
  tool('list_experts', 'asstToolExpList1', 'assistant-tool-list-experts.json', E, 'read', 'list installed and catalogue experts'),
  tool('install_expert', 'asstToolExpInst1', 'assistant-tool-install-expert.json', E, 'write', 'install a catalogue expert, on the operator\'s yes', { asksItself: 'ask-operator' }),
  tool('remove_expert', 'asstToolExpRemv1', 'assistant-tool-remove-expert.json', E, 'destructive', 'remove an installed expert and its workflow'),
  tool('ask_expert', 'asstToolAskExpt1', 'assistant-tool-ask-expert.json', E, 'external', 'delegate a task to an installed expert', 'never'),
  tool('build_tool', 'asstToolBuildTl1', 'assistant-tool-build-tool.json', E, 'write', 'build an HTTP API tool, on the operator\'s yes (docs/TOOL-BUILDING.md)', { asksItself: 'ask-operator' }),
  tool('run_tool', 'asstToolRunTool1', 'assistant-tool-run-tool.json', E, 'external', 'run a built tool'),
  tool('list_tools', 'asstToolListTls1', 'assistant-tool-list-tools.json', E, 'read', 'list the built tools'),
  tool('disable_tool', 'asstToolDisblTl1', 'assistant-tool-disable-tool.json', E, 'destructive', 'switch a built tool off'),
  tool('delete_tool', 'asstToolDeleteT1', 'assistant-tool-delete-tool.json', E, 'destructive', 'delete a built tool and its workflow'),
];

/** The tools whose result carries outside text: calling one marks the turn (safety/tool-approval.ts). */
const OUTSIDE_TEXT = new Set([
  'web_search',
  'read_page',
  'browser_open',
  'browser_snapshot',
  'browser_fill',
  'browser_click',
  'browser_select',
  'check_history',
  'run_tool',
  'ask_researcher',
  'ask_expert',
]);
/** The tools that fetch a URL the model gives them. */
const FETCHES_URL = new Set(['read_page', 'browser_open']);
/** The tools whose rule applies only to some calls. */
const ASKS_ONLY_WHEN: Readonly<Record<string, AskCondition>> = {
  run_tool: 'method-not-get',
  browser_click: 'sends-form',
};

/** Every tool of the main agent, in the order of its tool nodes. */
export const TOOL_REGISTRY: readonly AssistantTool[] = ENTRIES.map((entry) => ({
  ...entry,
  approval: entry.approval ?? DEFAULT_APPROVAL[entry.effect],
  ...(OUTSIDE_TEXT.has(entry.name) ? { bringsOutsideText: true } : {}),
  ...(FETCHES_URL.has(entry.name) ? { fetchesUrl: true } : {}),
  ...(ASKS_ONLY_WHEN[entry.name] ? { asksOnlyWhen: ASKS_ONLY_WHEN[entry.name] } : {}),
}));

/** Whether a tool's workflow runs the approval gate: it changes something, brings outside text or fetches a URL. */
export const runsApprovalGate = (tool: AssistantTool): boolean =>
  !tool.asksItself && !isDelegation(tool) && (tool.effect !== 'read' || !!tool.bringsOutsideText || !!tool.fetchesUrl);

/** Whether a tool hands its task to an expert (ask_<expert>; ask_user asks the user instead). */
export const isDelegation = (tool: AssistantTool): boolean => tool.name.startsWith('ask_') && tool.name !== 'ask_user';

/** The tool of that name, or undefined. */
export const toolByName = (name: string): AssistantTool | undefined => TOOL_REGISTRY.find((tool) => tool.name === name);
