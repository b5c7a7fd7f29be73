// What the model passes to each main-agent tool: its description and its arguments (name, type, whether required,
// what it is), as the tool nodes' $fromAI fields were before the routers (issue 41), and which of the turn's fields
// its workflow gets (set by the workflow from the turn, never by the model). The routers' descriptions, their argument
// check (routers.ts) and the generated workflows (router-workflows.ts) read this.

export type ArgumentType = 'string' | 'number';

export interface ToolArgument {
  name: string;
  type: ArgumentType;
  required: boolean;
  description: string;
}

/** The turn's fields a tool workflow gets: all of them, or the user and the deadline (tools that only read). */
export const TURN_FIELDS = ['user_id', 'turn_id', 'channel', 'chat_id', 'deadline'] as const;
export type TurnField = (typeof TURN_FIELDS)[number];
const TURN: readonly TurnField[] = TURN_FIELDS;
const USER_ONLY: readonly TurnField[] = ['user_id', 'deadline'];

export interface ToolCallSpec {
  /** What the tool does, for the model. */
  description: string;
  turnFields: readonly TurnField[];
  arguments: readonly ToolArgument[];
  /** Inputs the workflow always gets with the same value. */
  fixedInputs?: Readonly<Record<string, string>>;
}

const OPTIONAL = false;
const arg = (name: string, type: ArgumentType, description: string, required = true): ToolArgument => ({
  name,
  type,
  required,
  description,
});
const call = (
  description: string,
  turnFields: readonly TurnField[],
  args: ToolArgument[],
  fixedInputs?: Record<string, string>,
): ToolCallSpec => ({ description, turnFields, arguments: args, ...(fixedInputs ? { fixedInputs } : {}) });

// prettier-ignore
export const TOOL_CALLS: Readonly<Record<string, ToolCallSpec>> = {
  remember_memory: call("Store a lasting fact about the user (a preference, a person, an event). Use a full sentence.", TURN, [arg("content", 'string', "The fact to remember, as a full sentence"), arg("people", 'string', "Comma-separated full names of people the fact is about, or empty", OPTIONAL)]),
  recall_memories: call("Find remembered facts by words, a question or a name (a first name finds the full name).", USER_ONLY, [arg("query", 'string', "What to look for")]),
  update_memory: call("Replace the text of a remembered fact, by its memory id.", TURN, [arg("memory_id", 'number', "The memory id"), arg("content", 'string', "The corrected fact, as a full sentence")]),
  forget_memory: call("Delete a remembered fact, by its memory id.", TURN, [arg("memory_id", 'number', "The memory id")]),
  upsert_entity: call("Create or update a person, company, product or other entity in the knowledge graph.", TURN, [arg("name", 'string', "The entity name"), arg("entity_type", 'string', "person, company, product, place, project, other"), arg("summary", 'string', "A one-line summary, or empty", OPTIONAL)]),
  relate_entities: call("Record a directed relation \"<from> <relation> <to>\", e.g. \"Stefan works_at Acme\".", TURN, [arg("from", 'string', "The source entity name"), arg("relation", 'string', "The relation, snake_case, e.g. works_at"), arg("to", 'string', "The target entity name")]),
  query_graph: call("Look up an entity: its relations up to two steps away and the memories that mention it.", USER_ONLY, [arg("name", 'string', "The entity name")]),
  create_task: call("Create a task. due is when it is due in the user's own words; the tool reads them in the user's time zone and language, or answers with what it could not read (relay that). priority is low, medium, high or urgent.", TURN, [arg("title", 'string', "The task title"), arg("due", 'string', "When it is due, in the words of the user: \"tomorrow\", \"Friday 17:00\", \"in 3 days\", \"2026-05-01\". Never convert it yourself. Empty for none", OPTIONAL), arg("priority", 'string', "low, medium, high or urgent")]),
  list_tasks: call("List tasks. filter is one of: active, overdue, due_today, all; priority optionally narrows it.", USER_ONLY, [arg("filter", 'string', "active, overdue, due_today or all"), arg("priority", 'string', "low, medium, high, urgent, or empty for any", OPTIONAL)]),
  update_task: call("Change the title, due time or priority of a task, by its task id. Pass the due time in the user's own words ('none' removes it). Leave a field empty to keep it.", TURN, [arg("task_id", 'number', "The task id"), arg("title", 'string', "New title, or empty", OPTIONAL), arg("due", 'string', "New due time, in the words of the user: \"tomorrow\", \"Friday 17:00\", \"2026-05-01\"; \"none\" removes it; empty keeps it. Never convert it yourself", OPTIONAL), arg("priority", 'string', "low, medium, high, urgent, or empty", OPTIONAL)]),
  complete_task: call("Mark a task done, by its task id.", TURN, [arg("task_id", 'number', "The task id")]),
  delete_task: call("Delete a task, by its task id.", TURN, [arg("task_id", 'number', "The task id")]),
  forget_everything: call("Delete EVERYTHING remembered about the user: memories, the knowledge graph, tasks and the conversation. Only when the user explicitly asks to forget everything; the tool then asks them to confirm and forgets only on their yes.", TURN, []),
  set_reminder: call("Set a reminder. Pass the user's own words for when; the tool reads them in the user's time zone and answers with the exact time, or a sentence saying what it could not read. Relay that sentence.", TURN, [arg("text", 'string', "What to remind the user of"), arg("when", 'string', "When, in the words of the user: \"in 2 hours\", \"tomorrow at 9\", \"next Monday 14:30\", \"2026-04-01 09:00\". Never convert it yourself."), arg("task_id", 'string', "Optional: the id of the task it is about, or empty", OPTIONAL)]),
  list_reminders: call("List the user's reminders with their ids and due times.", USER_ONLY, [arg("status", 'string', "scheduled (default), fired, cancelled or any", OPTIONAL)]),
  cancel_reminder: call("Cancel a scheduled reminder by id.", TURN, [arg("reminder_id", 'string', "The reminder id from list_reminders")]),
  schedule_action: call("Schedule a recurring action: an instruction you will run for the user on a schedule, in their time zone, and deliver the result. Relay the answer (it names the first run, or what could not be read).", TURN, [arg("instruction", 'string', "What to do on each run, as an instruction to yourself, e.g. \"Summarise my open tasks\""), arg("schedule", 'string', "The words of the user: \"every 15 minutes\", \"every weekday at 7:30\", \"daily at 18:00\", or a cron line \"30 7 * * 1-5\"")]),
  list_actions: call("List the user's recurring actions with their ids, schedules, status and next runs.", USER_ONLY, []),
  change_action: call("Pause, resume or delete a recurring action.", TURN, [arg("action_id", 'string', "The action id from list_actions"), arg("change", 'string', "pause, resume or delete")]),
  update_preferences: call("Change the user's time zone, locale (the language their times and dates are read in), quiet hours (no nudges then) or daily briefing time (opt in with a time, 'off' to stop).", TURN, [arg("time_zone", 'string', "IANA time zone such as Europe/Vienna, or empty to keep", OPTIONAL), arg("locale", 'string', "BCP 47 locale such as de-AT, fr or pt-BR, or empty to keep", OPTIONAL), arg("quiet_hours", 'string', "Quiet hours such as \"22:00-07:00\", \"off\", or empty to keep", OPTIONAL), arg("briefing_time", 'string', "Local time of a daily briefing such as \"07:30\", \"off\", or empty to keep", OPTIONAL)]),
  list_failures: call("List what failed (failed runs, messages that could not be delivered, outages) since a time, in plain words, with what was retried. Use it for questions like 'did anything fail today?'.", USER_ONLY, [arg("since", 'string', "ISO 8601 time to look back to, or empty for the last 24 hours", OPTIONAL)]),
  spending: call("What the model calls cost today, this week or this month, by job and by model, and how much of each spending cap is used and when it resets; the owner sees the whole instance, anyone else their own calls. Use it for questions like 'what did you cost me this week, and on what?'.", USER_ONLY, [arg("period", 'string', "today, week or month (the calendar day, week from Monday or month so far)")]),
  issue_pairing_code: call("A one-time pairing code, to give the user as it is. The owner: for a new person (person_name), who sends it as their message from their own chat and becomes a user of their own. Anyone: for_self=true pairs another channel of their own.", TURN, [arg("person_name", 'string', "The new person's name, or empty with for_self", OPTIONAL), arg("for_self", 'string', "true to pair another channel of the user, else empty", OPTIONAL), arg("minutes", 'string', "How long it works, 1-1440, or empty for 15", OPTIONAL)]),
  list_people: call("The people the owner let in (name, channels) and each channel's DM policy. Owner only.", USER_ONLY, []),
  remove_person: call("Remove a person: they can no longer talk to the assistant. Their data is kept unless purge=true. Owner only.", TURN, [arg("person", 'string', "Their name as listed, or user id"), arg("purge", 'string', "true to delete everything of theirs, else empty", OPTIONAL)]),
  set_dm_policy: call("Who may talk on a channel (telegram, api, slack, email): owner (only the owner), pairing (people paired by code), allowlist (listed ids). Owner only.", TURN, [arg("channel_name", 'string', "telegram, api, slack or email"), arg("policy", 'string', "owner, pairing or allowlist"), arg("allow", 'string', "For allowlist: the ids, comma-separated", OPTIONAL)]),
  web_search: call("Search the web (no API key). Returns titles, URLs and snippets; read a result with read_page before relying on it, and name your sources.", TURN, [arg("query", 'string', "What to search for"), arg("max_results", 'string', "How many results, 1-25, or empty for 8", OPTIONAL)]),
  read_page: call("Read a web page or PDF as clean text (Markdown) with its title and links. Pages that need JavaScript are rendered in a browser. Only http(s) URLs on the public internet.", TURN, [arg("url", 'string', "The full http(s) URL"), arg("max_chars", 'string', "The most characters to return, or empty for 20000", OPTIONAL)]),
  add_check: call("Watch something in the background and tell the user only when it really changes: a web page (optionally one part, by CSS selector), an RSS/Atom feed (kind=feed), new results for a search query, or a value in a JSON endpoint (path, with condition changed/above/below and a threshold). The first run records a baseline silently. Use notify_when for conditions like 'only if the price drops below 50' (the Judge decides each change).", TURN, [arg("what", 'string', "The http(s) URL to watch, or the search query"), arg("schedule", 'string', "How often, e.g. every 15 minutes or every day at 9:00"), arg("notify_when", 'string', "Optional condition a change must meet to be told, or empty", OPTIONAL), arg("kind", 'string', "Optional: page, feed, search or json; empty to infer", OPTIONAL), arg("selector", 'string', "Optional CSS selector of the part of a page to watch, or empty", OPTIONAL), arg("path", 'string', "For JSON: the path of the value, e.g. data.price; else empty", OPTIONAL), arg("condition", 'string', "For JSON: changed, above or below; else empty", OPTIONAL), arg("threshold", 'string', "For JSON above/below: the number; else empty", OPTIONAL), arg("notify_threshold", 'string', "Optional Judge probability needed, 0-1; empty for 0.5", OPTIONAL)]),
  list_checks: call("List the user's background checks: what each watches, its schedule, next run, last change, and whether it is failing.", USER_ONLY, []),
  pause_check: call("Pause a background check, or resume a paused one (resume=true).", TURN, [arg("check_id", 'string', "The check id"), arg("resume", 'string', "true to resume a paused check, else empty", OPTIONAL)]),
  delete_check: call("Delete a background check for good.", TURN, [arg("check_id", 'string', "The check id")]),
  check_history: call("A background check's recent runs: baseline, unchanged, notified or silenced (with the Judge's probability), failed (with the error), skipped (\"skipped for budget\": a spending cap refused the Judge; the change is kept for the next run).", TURN, [arg("check_id", 'string', "The check id"), arg("limit", 'string', "How many runs, 1-100, or empty for 10", OPTIONAL)]),
  browser_open: call("Open a web page in the user's own browser (it keeps their sign-ins between tasks) to act on it: sign in, fill in forms, click. Returns the page text and its numbered elements. If the page asks for a one-time code, the user is asked for it and it is typed for you. For just reading a page, use read_page.", TURN, [arg("url", 'string', "The full http(s) URL")]),
  browser_snapshot: call("The browser page as it is now: its text and numbered elements (refs for browser_fill, browser_click, browser_select).", TURN, []),
  browser_fill: call("Type into a field of the browser page by its ref: either a value, or a stored site login by name (login, with part username or password) — never ask the user for passwords, and you never see them. One-time codes are asked for automatically; do not fill them yourself.", TURN, [arg("ref", 'string', "The element number from the last snapshot"), arg("value", 'string', "What to type, or empty when typing a login", OPTIONAL), arg("login", 'string', "The name of a site login the operator stored, or empty", OPTIONAL), arg("part", 'string', "username or password (for a login); else empty", OPTIONAL)]),
  browser_click: call("Click an element of the browser page by its ref (a button, link, checkbox); returns the page as it is afterwards.", TURN, [arg("ref", 'string', "The element number from the last snapshot")]),
  browser_select: call("Choose an option of a select element of the browser page by its ref and the option's label.", TURN, [arg("ref", 'string', "The element number from the last snapshot"), arg("option", 'string', "The option to choose, by its label")]),
  browser_screenshot: call("Send the user a screenshot of the browser page (a photo on Telegram, a file with the reply otherwise). You get the page as text.", TURN, []),
  browser_close: call("Close the browser task when done (sign-ins are kept for next time).", TURN, []),
  ask_user: call("Ask the user a question and wait for the answer (up to 5 minutes) when you cannot go on without it, e.g. which of two options to pick on a page. The answer is the result.", TURN, [arg("question", 'string', "The question, in one or two sentences")], {"kind": "question", "attempt": "1"}),
  ask_researcher: call("Delegate research to the Researcher expert: it searches the web, reads the pages and answers with sources. Give it the whole question as the task.", TURN, [arg("task", 'string', "The task for the expert, complete in itself")]),
  ask_planner: call("Delegate planning to the Planner expert: it creates and changes tasks, reminders and recurring actions. Give it the plan to make as the task, with any dates the user gave.", TURN, [arg("task", 'string', "The task for the expert, complete in itself")]),
  ask_analyst: call("Delegate a list to the Analyst expert: it ranks or filters the items with the Judge and reports each item's probability. Give it the items and the criterion as the task.", TURN, [arg("task", 'string', "The task for the expert, complete in itself")]),
  list_experts: call("List the experts: the installed ones (ask them with ask_expert, or ask_researcher, ask_planner, ask_analyst) and the catalogue ones the operator can install.", USER_ONLY, []),
  install_expert: call("Install an expert from the catalogue (list_experts shows them). The operator is asked on their channel and must answer yes; only the operator may install.", TURN, [arg("expert_id", 'string', "The expert id, e.g. travel-planner")]),
  remove_expert: call("Remove an expert installed from the catalogue, with its workflow. Only the operator may; the shipped experts stay.", TURN, [arg("expert_id", 'string', "The expert id, e.g. travel-planner")]),
  ask_expert: call("Delegate a task to an installed expert by its id (list_experts shows them). Give it the whole task, complete in itself.", TURN, [arg("expert_id", 'string', "The expert id, e.g. travel-planner"), arg("task", 'string', "The task for the expert, complete in itself")]),
  build_tool: call("Build a new tool that calls one HTTP API. spec is JSON: {\"name\": snake_case, \"purpose\", \"inputs\": [{\"name\", \"type\": string|number|boolean, \"description\", \"sample\"}], \"method\", \"url\" with {input} placeholders, \"credential\": the name of an n8n credential that holds the key (never put a key in the spec), \"body\" (optional), \"responseFields\": [{\"name\", \"path\" like main.temp}]}. It is tested with the samples and goes live only after the operator says yes.", TURN, [arg("spec", 'string', "The tool spec as a JSON object")]),
  run_tool: call("Run a tool built with build_tool (list_tools shows them) with its inputs as a JSON object, e.g. {\"city\": \"Paris\"}.", TURN, [arg("name", 'string', "The built tool name, e.g. city_weather"), arg("input", 'string', "The inputs as a JSON object")]),
  list_tools: call("List the tools built with build_tool: name, purpose, status, inputs and what each calls.", USER_ONLY, []),
  disable_tool: call("Switch a built tool off. Only the operator may.", TURN, [arg("name", 'string', "The built tool name, e.g. city_weather")]),
  delete_tool: call("Delete a built tool and its workflow. Only the operator may.", TURN, [arg("name", 'string', "The built tool name, e.g. city_weather")]),
  memory_panel: call("What the assistant keeps about the user, by id: action 'list' (the memories with ids and dates; with about, that person's or thing's graph facts too), 'pin' or 'unpin' (a pinned memory is never folded by the nightly tidy-up), 'restore' (a merged or folded memory back, by id, within 30 days), 'tidied' (what the nightly tidy-up did in the last 48 hours).", TURN, [arg("action", 'string', "list, pin, unpin, restore or tidied"), arg("about", 'string', "For list: a person or thing to list, or empty for everything", OPTIONAL), arg("memory_id", 'number', "For pin, unpin and restore: the memory id; 0 otherwise", OPTIONAL)]),
};
