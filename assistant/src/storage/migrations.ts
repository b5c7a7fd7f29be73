// The assistant's schema, as ordered migrations. Each runs once, in its own transaction, recorded in
// assistant.schema_migrations. Never edit a released migration: add a new one.

import type { Migration } from 'systemone-judge/migrations';

export type { Migration };

export const SCHEMA = 'assistant';

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'users, identities, settings, memories, knowledge graph, tasks, turns',
    sql: `
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE assistant.users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- "telegram:<chat id>" or "api:<user id>"; the prefix is chosen by the entry point, never by the caller.
CREATE TABLE assistant.identities (
  identity text PRIMARY KEY CHECK (identity ~ '^(telegram:-?[0-9]+|api:.+)$'),
  user_id uuid NOT NULL REFERENCES assistant.users(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX identities_user_idx ON assistant.identities(user_id);

-- One row: the defaults for every user, and who owns the Telegram bot.
CREATE TABLE assistant.instance_settings (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  assistant_name text NOT NULL DEFAULT 'Assistant',
  language text NOT NULL DEFAULT 'english',
  style text NOT NULL DEFAULT 'Friendly, concise and direct.',
  time_zone text NOT NULL DEFAULT 'UTC',
  owner_telegram_chat_id text CHECK (owner_telegram_chat_id ~ '^-?[0-9]+$'),
  updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO assistant.instance_settings DEFAULT VALUES;

-- Per-user overrides; null means "use the instance default".
CREATE TABLE assistant.user_settings (
  user_id uuid PRIMARY KEY REFERENCES assistant.users(id) ON DELETE CASCADE,
  assistant_name text,
  language text,
  style text,
  time_zone text,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE assistant.memories (
  id bigserial PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES assistant.users(id) ON DELETE CASCADE,
  content text NOT NULL,
  kind text NOT NULL DEFAULT 'fact',
  importance smallint NOT NULL DEFAULT 3 CHECK (importance BETWEEN 1 AND 5),
  tags text[] NOT NULL DEFAULT '{}',
  people text[] NOT NULL DEFAULT '{}',
  entities text[] NOT NULL DEFAULT '{}',
  -- people and entities, normalised, for graph look-ups; and as one text for trigram name search
  name_keys text[] NOT NULL DEFAULT '{}',
  names text NOT NULL DEFAULT '',
  source text,
  language regconfig NOT NULL,
  search_vector tsvector NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX memories_search_idx ON assistant.memories USING gin (search_vector);
CREATE INDEX memories_names_trgm_idx ON assistant.memories USING gin (names gin_trgm_ops);
CREATE INDEX memories_name_keys_idx ON assistant.memories USING gin (name_keys);
CREATE INDEX memories_user_recent_idx ON assistant.memories(user_id, created_at DESC);

CREATE TABLE assistant.entities (
  id bigserial PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES assistant.users(id) ON DELETE CASCADE,
  name text NOT NULL,
  normalized_name text NOT NULL,
  type text NOT NULL DEFAULT 'other',
  summary text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, normalized_name),
  UNIQUE (user_id, id)
);
CREATE INDEX entities_name_trgm_idx ON assistant.entities USING gin (normalized_name gin_trgm_ops);

-- Typed, directed: "<from> <type> <to>", e.g. "Stefan Huber works_at Acme". Both ends belong to the same user.
CREATE TABLE assistant.relations (
  id bigserial PRIMARY KEY,
  user_id uuid NOT NULL,
  from_entity_id bigint NOT NULL,
  to_entity_id bigint NOT NULL,
  type text NOT NULL,
  valid_from timestamptz,
  valid_to timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (user_id, from_entity_id) REFERENCES assistant.entities(user_id, id) ON DELETE CASCADE,
  FOREIGN KEY (user_id, to_entity_id) REFERENCES assistant.entities(user_id, id) ON DELETE CASCADE,
  CHECK (valid_to IS NULL OR valid_from IS NULL OR valid_to >= valid_from)
);
CREATE INDEX relations_from_idx ON assistant.relations(user_id, from_entity_id);
CREATE INDEX relations_to_idx ON assistant.relations(user_id, to_entity_id);

CREATE TABLE assistant.tasks (
  id bigserial PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES assistant.users(id) ON DELETE CASCADE,
  title text NOT NULL CHECK (title <> ''),
  notes text,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'in_progress', 'done', 'cancelled')),
  priority text NOT NULL DEFAULT 'medium' CHECK (priority IN ('low', 'medium', 'high', 'urgent')),
  due_at timestamptz,
  parent_id bigint,
  tags text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  UNIQUE (user_id, id),
  FOREIGN KEY (user_id, parent_id) REFERENCES assistant.tasks(user_id, id)
);
CREATE INDEX tasks_user_status_due_idx ON assistant.tasks(user_id, status, due_at);
CREATE INDEX tasks_parent_idx ON assistant.tasks(user_id, parent_id);

CREATE TABLE assistant.turns (
  id bigserial PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES assistant.users(id) ON DELETE CASCADE,
  session_id text NOT NULL,
  role text NOT NULL CHECK (role IN ('user', 'assistant')),
  content text NOT NULL,
  channel text NOT NULL,
  metadata jsonb,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX turns_user_session_idx ON assistant.turns(user_id, session_id, id DESC);
CREATE INDEX turns_user_idx ON assistant.turns(user_id, id DESC);
`,
  },
  {
    version: 2,
    name: 'GIN indexes without a pending list (searches stay fast between vacuums)',
    sql: `
ALTER INDEX assistant.memories_search_idx SET (fastupdate = off);
ALTER INDEX assistant.memories_names_trgm_idx SET (fastupdate = off);
ALTER INDEX assistant.memories_name_keys_idx SET (fastupdate = off);
ALTER INDEX assistant.entities_name_trgm_idx SET (fastupdate = off);
SELECT gin_clean_pending_list(index) FROM unnest(ARRAY[
  'assistant.memories_search_idx', 'assistant.memories_names_trgm_idx',
  'assistant.memories_name_keys_idx', 'assistant.entities_name_trgm_idx']::regclass[]) AS index;
`,
  },
  {
    version: 3,
    name: 'the chat model name as an instance setting',
    sql: `
-- The model the Chat Model node asks for (the provider is the credential's base URL): a setting, not workflow JSON.
ALTER TABLE assistant.instance_settings
  ADD COLUMN chat_model text NOT NULL DEFAULT 'gpt-4o-mini' CHECK (chat_model ~ '^[^[:space:][:cntrl:]]{1,200}$');
`,
  },
  {
    version: 4,
    name: 'optional memory embeddings (unit vectors as real[], with the model that made them)',
    sql: `
-- Filled only when an embeddings endpoint is configured; recall re-ranks its candidates by cosine similarity.
-- A pgvector column and HNSW index are added separately by enableVectorIndex (the dimension is set at install).
ALTER TABLE assistant.memories ADD COLUMN embedding real[], ADD COLUMN embedding_model text;
-- One row once enableVectorIndex has run: the pgvector column's dimension.
CREATE TABLE assistant.vector_index (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  dimensions integer NOT NULL CHECK (dimensions BETWEEN 1 AND 2000),
  created_at timestamptz NOT NULL DEFAULT now()
);
`,
  },
  {
    version: 5,
    name: 'turns stored on arrival (pending, answered, failed), pending questions, reply deadline and message cap',
    sql: `
-- The user's message is stored before anything runs (status pending), then answered or failed with the error.
-- Assistant rows are always 'answered'. A redacted row holds a placeholder instead of what was sent (a code).
ALTER TABLE assistant.turns
  ADD COLUMN status text NOT NULL DEFAULT 'answered' CHECK (status IN ('pending', 'answered', 'failed')),
  ADD COLUMN error text,
  ADD COLUMN finished_at timestamptz,
  ADD COLUMN redacted boolean NOT NULL DEFAULT false,
  ADD COLUMN answers_turn_id bigint;
-- Assistant rows name the user row they answer (older rows: the next user row before them, by id).
CREATE INDEX turns_answers_idx ON assistant.turns(answers_turn_id) WHERE answers_turn_id IS NOT NULL;
CREATE INDEX turns_pending_idx ON assistant.turns(user_id, id) WHERE status = 'pending';

-- Questions a run asked the user and waits on (a one-time code, an approval, a free question). The answer is kept
-- only until the waiting step takes it.
CREATE TABLE assistant.pending_questions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES assistant.users(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('one_time_code', 'approval', 'question')),
  question text NOT NULL CHECK (question <> ''),
  channel_message_id text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  expires_at timestamptz NOT NULL,
  answered_at timestamptz,
  answer text,
  answer_turn_id bigint
);
CREATE INDEX pending_questions_open_idx ON assistant.pending_questions(user_id, created_at) WHERE answered_at IS NULL;

-- How long a webhook caller waits for the reply before a 504 with the turn id, and the longest message accepted.
ALTER TABLE assistant.instance_settings
  ADD COLUMN reply_deadline_seconds integer NOT NULL DEFAULT 120 CHECK (reply_deadline_seconds BETWEEN 1 AND 300),
  ADD COLUMN max_message_chars integer NOT NULL DEFAULT 200000 CHECK (max_message_chars BETWEEN 1 AND 1000000);
`,
  },
  {
    version: 6,
    name: 'reminders, recurring actions, briefings, the outbox and the scheduler ledger',
    sql: `
-- Per-user proactive preferences (null: the instance default, or off).
ALTER TABLE assistant.user_settings
  ADD COLUMN quiet_start text CHECK (quiet_start ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  -- '' (with quiet_start null): this user turned quiet hours off, whatever the instance default says.
  ADD COLUMN quiet_end text CHECK (quiet_end ~ '^(([01][0-9]|2[0-3]):[0-5][0-9])?$'),
  ADD COLUMN briefing_time text CHECK (briefing_time ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  ADD COLUMN briefing_last_on date,
  ADD COLUMN callback_url text CHECK (length(callback_url) <= 2000);
ALTER TABLE assistant.instance_settings
  ADD COLUMN heartbeat_interval_seconds integer NOT NULL DEFAULT 300 CHECK (heartbeat_interval_seconds BETWEEN 60 AND 86400),
  ADD COLUMN nudge_cooldown_minutes integer NOT NULL DEFAULT 240 CHECK (nudge_cooldown_minutes BETWEEN 1 AND 10080),
  ADD COLUMN nudge_soon_hours integer NOT NULL DEFAULT 24 CHECK (nudge_soon_hours BETWEEN 1 AND 168),
  ADD COLUMN delivery_max_attempts integer NOT NULL DEFAULT 8 CHECK (delivery_max_attempts BETWEEN 1 AND 20),
  ADD COLUMN delivery_retry_seconds integer NOT NULL DEFAULT 30 CHECK (delivery_retry_seconds BETWEEN 1 AND 3600),
  ADD COLUMN quiet_start text CHECK (quiet_start ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  ADD COLUMN quiet_end text CHECK (quiet_end ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$');
-- A reminder fires once: the tick that claims it (FOR UPDATE SKIP LOCKED) queues its message in the same transaction.
CREATE TABLE assistant.reminders (
  id bigserial PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES assistant.users(id) ON DELETE CASCADE,
  text text NOT NULL CHECK (text <> ''),
  due_at timestamptz NOT NULL,
  when_text text NOT NULL,
  time_zone text NOT NULL,
  task_id bigint,
  status text NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'fired', 'cancelled')),
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  fired_at timestamptz,
  late boolean,
  outbox_id bigint,
  FOREIGN KEY (user_id, task_id) REFERENCES assistant.tasks(user_id, id) ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX reminders_due_idx ON assistant.reminders(due_at) WHERE status = 'scheduled';
CREATE INDEX reminders_user_idx ON assistant.reminders(user_id, status, due_at);
CREATE TABLE assistant.scheduled_actions (
  id bigserial PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES assistant.users(id) ON DELETE CASCADE,
  instruction text NOT NULL CHECK (instruction <> ''),
  schedule_text text NOT NULL,
  schedule jsonb NOT NULL,
  time_zone text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused')),
  -- The due time of the last run (or the creation time): an interval's grid is anchored here.
  anchor_at timestamptz NOT NULL,
  next_run_at timestamptz NOT NULL,
  last_run_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX scheduled_actions_due_idx ON assistant.scheduled_actions(next_run_at) WHERE status = 'active';
CREATE INDEX scheduled_actions_user_idx ON assistant.scheduled_actions(user_id, id);
CREATE TABLE assistant.action_runs (
  id bigserial PRIMARY KEY,
  action_id bigint NOT NULL REFERENCES assistant.scheduled_actions(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES assistant.users(id) ON DELETE CASCADE,
  tick_id bigint,
  scheduled_for timestamptz NOT NULL,
  started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  finished_at timestamptz,
  status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'succeeded', 'failed')),
  late boolean NOT NULL DEFAULT false,
  note text,
  turn_id bigint,
  error text
);
CREATE INDEX action_runs_action_idx ON assistant.action_runs(action_id, id DESC);
CREATE INDEX action_runs_user_idx ON assistant.action_runs(user_id);
-- Everything the assistant says on its own: one row per message, delivered by the minute tick.
CREATE TABLE assistant.outbox (
  id bigserial PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES assistant.users(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('reminder', 'nudge', 'action', 'briefing', 'notice')),
  text text NOT NULL CHECK (text <> ''),
  data jsonb NOT NULL DEFAULT '{}',
  -- What the message is about ('reminder:42'): one message per key, however often it is queued.
  dedupe_key text UNIQUE,
  channel text NOT NULL CHECK (channel IN ('telegram', 'webhook', 'pull')),
  target text,
  status text NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'sending', 'delivered', 'failed', 'unknown', 'stored')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  claimed_at timestamptz,
  last_error text,
  delivered_at timestamptz,
  channel_message_id text,
  tick_id bigint,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX outbox_due_idx ON assistant.outbox(next_attempt_at) WHERE status = 'pending';
CREATE INDEX outbox_sending_idx ON assistant.outbox(claimed_at) WHERE status = 'sending';
CREATE INDEX outbox_user_idx ON assistant.outbox(user_id, id);
-- When each nudge subject ('task:7') was last sent to a user: the cooldown.
CREATE TABLE assistant.nudge_log (
  user_id uuid NOT NULL REFERENCES assistant.users(id) ON DELETE CASCADE,
  subject text NOT NULL,
  last_sent_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, subject)
);
-- The run ledger: one row per minute tick, so the real heartbeat interval can be shown.
CREATE TABLE assistant.scheduler_ticks (
  id bigserial PRIMARY KEY,
  tick_at timestamptz NOT NULL,
  started_at timestamptz NOT NULL,
  finished_at timestamptz,
  heartbeat boolean NOT NULL DEFAULT false,
  reminders_queued integer NOT NULL DEFAULT 0,
  late_reminders integer NOT NULL DEFAULT 0,
  nudges_sent integer NOT NULL DEFAULT 0,
  actions_started integer NOT NULL DEFAULT 0,
  briefings_started integer NOT NULL DEFAULT 0,
  delivered integer NOT NULL DEFAULT 0,
  delivery_failures integer NOT NULL DEFAULT 0
);
CREATE INDEX scheduler_ticks_started_idx ON assistant.scheduler_ticks(started_at DESC);
CREATE INDEX scheduler_ticks_heartbeat_idx ON assistant.scheduler_ticks(started_at DESC) WHERE heartbeat;
-- One row: when the heartbeat last ran (read and moved under a row lock, so two ticks never both run it).
CREATE TABLE assistant.scheduler_state (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  last_heartbeat_at timestamptz
);
INSERT INTO assistant.scheduler_state DEFAULT VALUES;
-- The heartbeat's question, "which open tasks are overdue or due soon?", across all users.
CREATE INDEX tasks_active_due_idx ON assistant.tasks(due_at) WHERE status IN ('open', 'in_progress') AND due_at IS NOT NULL;
`,
  },
  {
    version: 7,
    name: 'failures: failed executions, deliveries and action runs, and outages',
    sql: `
-- Everything that went wrong, in one place, for "did anything fail today?" and the owner's failure reports. The
-- message is stored with secrets scrubbed.
CREATE TABLE assistant.failures (
  id bigserial PRIMARY KEY,
  occurred_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  source text NOT NULL CHECK (source IN ('workflow', 'delivery', 'action', 'check', 'outage')),
  workflow text,
  node text,
  message text NOT NULL,
  execution_id text,
  user_id uuid REFERENCES assistant.users(id) ON DELETE CASCADE,
  -- What was done about it, e.g. "retried 8 times over 64 min" or "3 reminders delivered late".
  retried text,
  data jsonb NOT NULL DEFAULT '{}',
  reported_at timestamptz
);
CREATE INDEX failures_time_idx ON assistant.failures(occurred_at DESC);
CREATE INDEX failures_unreported_idx ON assistant.failures(occurred_at) WHERE reported_at IS NULL;
CREATE INDEX failures_user_idx ON assistant.failures(user_id) WHERE user_id IS NOT NULL;
-- How often at most the owner gets a report of new failures (0: never).
ALTER TABLE assistant.instance_settings
  ADD COLUMN failure_report_minutes integer NOT NULL DEFAULT 60 CHECK (failure_report_minutes BETWEEN 0 AND 10080);
`,
  },
  {
    version: 8,
    name: 'checks: silent background checks of pages, feeds, searches and JSON values',
    sql: `
-- A check watches one thing on a schedule and speaks only on a real delta, decided from the state stored here (the
-- baseline, seen item ids, a content hash, the last value); with notify_when, the Judge decides whether a delta is
-- worth telling.
CREATE TABLE assistant.checks (
  id bigserial PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES assistant.users(id) ON DELETE CASCADE,
  what text NOT NULL CHECK (what <> ''),
  kind text NOT NULL CHECK (kind IN ('page', 'feed', 'search', 'json')),
  -- The URL (page, feed, json) or the search query.
  target text NOT NULL,
  selector text,
  path text,
  condition text NOT NULL DEFAULT 'changed' CHECK (condition IN ('changed', 'above', 'below')),
  threshold double precision,
  notify_when text,
  notify_threshold double precision NOT NULL DEFAULT 0.5 CHECK (notify_threshold BETWEEN 0 AND 1),
  schedule_text text NOT NULL,
  schedule jsonb NOT NULL,
  time_zone text NOT NULL,
  anchor_at timestamptz NOT NULL,
  next_run_at timestamptz NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused')),
  -- NULL until the first run records the baseline.
  state jsonb,
  baseline_at timestamptz,
  last_run_at timestamptz,
  last_change_at timestamptz,
  last_error text,
  failing_since timestamptz,
  consecutive_failures integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX checks_due_idx ON assistant.checks(next_run_at) WHERE status = 'active';
CREATE INDEX checks_user_idx ON assistant.checks(user_id, id);
-- One row per run: what it found, what the Judge said (probability beside the decision), what was sent.
CREATE TABLE assistant.check_runs (
  id bigserial PRIMARY KEY,
  check_id bigint NOT NULL REFERENCES assistant.checks(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES assistant.users(id) ON DELETE CASCADE,
  tick_id bigint,
  started_at timestamptz NOT NULL,
  finished_at timestamptz,
  status text NOT NULL DEFAULT 'running'
    CHECK (status IN ('running', 'changed', 'baseline', 'unchanged', 'notified', 'silenced', 'failed')),
  summary text,
  -- The state this run saw, committed to the check when the run finishes (so a failed Judge call loses no delta).
  new_state jsonb,
  judge_probability double precision,
  judge_threshold double precision,
  outbox_id bigint,
  error text
);
CREATE INDEX check_runs_check_idx ON assistant.check_runs(check_id, id DESC);
CREATE INDEX check_runs_user_idx ON assistant.check_runs(user_id);
CREATE INDEX check_runs_running_idx ON assistant.check_runs(started_at) WHERE status IN ('running', 'changed');
ALTER TABLE assistant.outbox DROP CONSTRAINT outbox_kind_check;
ALTER TABLE assistant.outbox ADD CONSTRAINT outbox_kind_check
  CHECK (kind IN ('reminder', 'nudge', 'action', 'briefing', 'notice', 'check'));
ALTER TABLE assistant.scheduler_ticks ADD COLUMN checks_started integer NOT NULL DEFAULT 0;
`,
  },
  {
    version: 9,
    name: 'browser tasks: questions tied to the run that asked, and screenshots kept with the turn',
    sql: `
-- The turn whose run asked (null for a question asked outside a run): the webhook answers that turn's caller with
-- needs_input, and a reply_to continues that run.
ALTER TABLE assistant.pending_questions ADD COLUMN turn_id bigint REFERENCES assistant.turns(id) ON DELETE CASCADE;
CREATE INDEX pending_questions_turn_idx ON assistant.pending_questions(turn_id) WHERE turn_id IS NOT NULL;
-- How many times this run asked for a one-time code on one page (a site that keeps refusing stops at a limit).
ALTER TABLE assistant.pending_questions ADD COLUMN attempt integer NOT NULL DEFAULT 1 CHECK (attempt >= 1);
-- Files a run made for its turn (a browser screenshot): sent as a photo on Telegram, returned with the webhook reply.
CREATE TABLE assistant.turn_attachments (
  id bigserial PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES assistant.users(id) ON DELETE CASCADE,
  turn_id bigint NOT NULL REFERENCES assistant.turns(id) ON DELETE CASCADE,
  file_name text NOT NULL CHECK (file_name ~ '^[A-Za-z0-9._-]{1,100}$'),
  mime_type text NOT NULL CHECK (mime_type ~ '^[a-z]+/[a-z0-9.+-]+$'),
  data bytea NOT NULL CHECK (octet_length(data) BETWEEN 1 AND 5242880),
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX turn_attachments_turn_idx ON assistant.turn_attachments(turn_id, id);
CREATE INDEX turn_attachments_user_idx ON assistant.turn_attachments(user_id);
-- How long a question waits for its answer (a setting, so tests can shorten it).
ALTER TABLE assistant.instance_settings
  ADD COLUMN question_ttl_seconds integer NOT NULL DEFAULT 300 CHECK (question_ttl_seconds BETWEEN 5 AND 600);
`,
  },
  {
    version: 10,
    name: 'the web search engine as a stored setting',
    sql: `
-- Which engine web_search asks, changeable at run time (null: the environment's ASSISTANT_SEARCH_BACKEND and
-- ASSISTANT_SEARXNG_URL).
ALTER TABLE assistant.instance_settings
  ADD COLUMN search_backend text CHECK (search_backend IN ('duckduckgo', 'searxng')),
  ADD COLUMN searxng_url text CHECK (searxng_url ~ '^https?://');
`,
  },
  {
    version: 11,
    name: 'experts: the shipped ones and those installed from the catalogue, with a model each',
    sql: `
-- Every expert the main agent can delegate to: the three shipped ones, and catalogue entries the operator installed
-- (their n8n workflow). model: this expert's model name, or null for the chatModel setting.
CREATE TABLE assistant.experts (
  id text PRIMARY KEY CHECK (id ~ '^[a-z][a-z0-9-]{1,39}$'),
  source text NOT NULL CHECK (source IN ('shipped', 'catalogue')),
  workflow_id text,
  model text CHECK (model ~ '^[^[:space:][:cntrl:]]{1,200}$'),
  installed_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
INSERT INTO assistant.experts (id, source) VALUES ('researcher', 'shipped'), ('planner', 'shipped'), ('analyst', 'shipped');
`,
  },
  {
    version: 12,
    name: 'built tools: the workflows the assistant built, from draft to approved, disabled or deleted',
    sql: `
-- A tool the assistant built from a spec: its n8n workflow (created inactive), the spec, the test execution's output,
-- and whether the operator approved it (active), it waits for them (draft) or was switched off (disabled).
-- requested_by: who asked for it (the operator); kept when that user is forgotten, as null.
CREATE TABLE assistant.built_tools (
  name text PRIMARY KEY CHECK (name ~ '^[a-z][a-z0-9_]{2,39}$'),
  workflow_id text NOT NULL,
  purpose text NOT NULL,
  spec jsonb NOT NULL,
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'active', 'disabled')),
  test_output jsonb,
  requested_by uuid REFERENCES assistant.users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  approved_at timestamptz
);
`,
  },
  {
    version: 13,
    name: 'the locale times are read in, and how often urgent tasks without a due date are nudged',
    sql: `
-- The locale (BCP 47) times, dates and recurrences are read and answered in; separate from language (text search).
-- A user's null: the instance's.
ALTER TABLE assistant.instance_settings
  ADD COLUMN locale text NOT NULL DEFAULT 'en'
    CHECK (locale ~ '^[a-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?$'),
  -- An urgent task without a due date is nudged about this often, in hours (0: never); default 24, daily.
  ADD COLUMN urgent_nudge_hours integer NOT NULL DEFAULT 24 CHECK (urgent_nudge_hours BETWEEN 0 AND 720);
ALTER TABLE assistant.user_settings
  ADD COLUMN locale text CHECK (locale ~ '^[a-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?$');
`,
  },
  {
    version: 14,
    name: 'the model gateway ledger: every model call, who made it, what it cost in tokens, how it ended',
    sql: `
-- One row per model call through the gateway. upstream: the gateway's route (llm, judge, embeddings, transcription);
-- job/user_id/ref: the caller, from the model id's suffix; prompt/output/cached tokens as the provider reported them;
-- measured_prompt_tokens: the gateway's own measure before sending (measured_by: tokenizer or estimate), against
-- window_tokens; outcome: ok, refused (not sent: it could not fit), cut (the provider saw less than was sent),
-- failed (an error status), timeout, or aborted (the caller went away). Holds no prompt and no answer.
CREATE TABLE assistant.model_calls (
  id bigserial PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  upstream text NOT NULL,
  route text NOT NULL,
  job text NOT NULL,
  user_id uuid REFERENCES assistant.users(id) ON DELETE SET NULL,
  ref text,
  provider text NOT NULL,
  model text NOT NULL,
  prompt_tokens integer,
  output_tokens integer,
  cached_tokens integer,
  measured_prompt_tokens integer,
  measured_by text CHECK (measured_by IN ('tokenizer', 'estimate')),
  window_tokens integer,
  latency_ms integer NOT NULL,
  status integer NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('ok', 'refused', 'cut', 'failed', 'timeout', 'aborted')),
  error text
);
CREATE INDEX model_calls_at ON assistant.model_calls (at);
CREATE INDEX model_calls_user_at ON assistant.model_calls (user_id, at);
`,
  },
  {
    version: 15,
    name: 'timeouts that fit the model: a model call timeout, and a reply deadline a model on a CPU can meet',
    sql: `
-- How long one model call may take, in seconds (the Chat Model nodes' timeout); 300 fits a model on a CPU.
ALTER TABLE assistant.instance_settings
  ADD COLUMN model_timeout_seconds integer NOT NULL DEFAULT 300 CHECK (model_timeout_seconds BETWEEN 10 AND 600);
-- The webhook may wait up to 900 s (was 300), by default 600 s (was 120): a few model calls on a CPU. A stored 120 is
-- the old default rather than a choice, so it moves to the new one.
ALTER TABLE assistant.instance_settings DROP CONSTRAINT instance_settings_reply_deadline_seconds_check;
ALTER TABLE assistant.instance_settings
  ALTER COLUMN reply_deadline_seconds SET DEFAULT 600,
  ADD CONSTRAINT instance_settings_reply_deadline_seconds_check CHECK (reply_deadline_seconds BETWEEN 1 AND 900);
UPDATE assistant.instance_settings SET reply_deadline_seconds = 600 WHERE reply_deadline_seconds = 120;
`,
  },
  {
    version: 16,
    name: 'spending caps: per instance, user or job, per day or month, in money and tokens, reserved before each call',
    sql: `
-- A cap on what model calls may cost in a window. scope: instance (every call), user (that user's calls), job (calls
-- of that job, e.g. heartbeat, action, check, expert:researcher, judge; "expert" covers every expert:<id>).
-- limit_micros: money in millionths of a US dollar; limit_tokens: prompt plus output tokens. Either may be null (no
-- limit of that kind), not both. Windows are the calendar day or month in the instance's time zone (a user cap: the
-- user's).
CREATE TABLE assistant.budget_caps (
  id bigserial PRIMARY KEY,
  scope text NOT NULL CHECK (scope IN ('instance', 'user', 'job')),
  user_id uuid REFERENCES assistant.users(id) ON DELETE CASCADE,
  job text,
  period text NOT NULL CHECK (period IN ('day', 'month')),
  limit_micros bigint CHECK (limit_micros >= 0),
  limit_tokens bigint CHECK (limit_tokens >= 0),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  CHECK (limit_micros IS NOT NULL OR limit_tokens IS NOT NULL),
  CHECK ((scope = 'user') = (user_id IS NOT NULL) AND (scope = 'job') = (job IS NOT NULL)),
  UNIQUE NULLS NOT DISTINCT (scope, user_id, job, period)
);
-- What a cap's window has spent (settled to the provider's usage) and holds reserved (calls under way, at their
-- largest possible cost). notified_percent: the highest of 50, 75, 90, 100 the owner was told of in this window.
CREATE TABLE assistant.budget_windows (
  cap_id bigint NOT NULL REFERENCES assistant.budget_caps(id) ON DELETE CASCADE,
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL,
  spent_micros bigint NOT NULL DEFAULT 0,
  reserved_micros bigint NOT NULL DEFAULT 0,
  spent_tokens bigint NOT NULL DEFAULT 0,
  reserved_tokens bigint NOT NULL DEFAULT 0,
  notified_percent integer NOT NULL DEFAULT 0,
  PRIMARY KEY (cap_id, starts_at)
);
-- What each call cost (millionths of a dollar), and which price it was priced by (a table entry with its date, the
-- operator's override, the provider's reported cost, local: 0, or unpriced).
ALTER TABLE assistant.model_calls
  ADD COLUMN cost_micros bigint,
  ADD COLUMN priced_by text;
-- A recurring action's run whose model call a cap refused is skipped for budget, not failed.
ALTER TABLE assistant.action_runs DROP CONSTRAINT action_runs_status_check;
ALTER TABLE assistant.action_runs
  ADD CONSTRAINT action_runs_status_check CHECK (status IN ('running', 'succeeded', 'failed', 'skipped'));
ALTER TABLE assistant.model_calls DROP CONSTRAINT model_calls_outcome_check;
ALTER TABLE assistant.model_calls
  ADD CONSTRAINT model_calls_outcome_check
    CHECK (outcome IN ('ok', 'refused', 'cut', 'failed', 'timeout', 'aborted', 'over_budget'));
`,
  },
  {
    version: 17,
    name: "spending caps: a check's run skipped for budget, and the owner's raise of a spent window by approval",
    sql: `
-- A check's run whose Judge call a spending cap refused is skipped for budget, not failed (its change is kept).
ALTER TABLE assistant.check_runs DROP CONSTRAINT check_runs_status_check;
ALTER TABLE assistant.check_runs
  ADD CONSTRAINT check_runs_status_check
    CHECK (status IN ('running', 'changed', 'baseline', 'unchanged', 'notified', 'silenced', 'failed', 'skipped'));
-- What the owner added to one window of a cap, by answering yes to the approval question a refusal asked them.
ALTER TABLE assistant.budget_windows
  ADD COLUMN raised_micros bigint NOT NULL DEFAULT 0 CHECK (raised_micros >= 0),
  ADD COLUMN raised_tokens bigint NOT NULL DEFAULT 0 CHECK (raised_tokens >= 0);
-- The raise a question offers (the cap's own limit once more, for that window); decided once, by the owner's answer.
CREATE TABLE assistant.budget_raise_offers (
  question_id uuid PRIMARY KEY REFERENCES assistant.pending_questions(id) ON DELETE CASCADE,
  cap_id bigint NOT NULL,
  starts_at timestamptz NOT NULL,
  add_micros bigint NOT NULL DEFAULT 0 CHECK (add_micros >= 0),
  add_tokens bigint NOT NULL DEFAULT 0 CHECK (add_tokens >= 0),
  decision text CHECK (decision IN ('raised', 'declined')),
  FOREIGN KEY (cap_id, starts_at) REFERENCES assistant.budget_windows(cap_id, starts_at) ON DELETE CASCADE
);
CREATE INDEX budget_raise_offers_window_idx ON assistant.budget_raise_offers(cap_id, starts_at);
-- A question only a reply to its own message (or the webhook's reply_to) answers: a plain message stays a message.
ALTER TABLE assistant.pending_questions ADD COLUMN answer_by_reply boolean NOT NULL DEFAULT false;
`,
  },
  {
    version: 18,
    name: 'late replies: a webhook caller that stopped waiting gets the reply through the outbox',
    sql: `
-- When the webhook stopped waiting for the turn's reply (it answered 504 reply_pending): the reply, once there, is
-- queued in the outbox for that caller (callback URL, Telegram or pull).
ALTER TABLE assistant.turns ADD COLUMN caller_left_at timestamptz;
ALTER TABLE assistant.outbox DROP CONSTRAINT outbox_kind_check;
ALTER TABLE assistant.outbox ADD CONSTRAINT outbox_kind_check
  CHECK (kind IN ('reminder', 'nudge', 'action', 'briefing', 'notice', 'check', 'reply'));
`,
  },
  {
    version: 19,
    name: 'failure awareness sees every failure: turns, provider errors, budget stops, skipped runs; streaks counted',
    sql: `
-- turn: a message that got no reply; provider: a model provider's error as the gateway saw it; budget: a call a
-- spending cap refused; skipped: a recurring run or check skipped (for budget). A streak of the same failure (the
-- same source, user and fingerprint, not yet reported) is one row: count and last_at grow.
ALTER TABLE assistant.failures DROP CONSTRAINT failures_source_check;
ALTER TABLE assistant.failures
  ADD CONSTRAINT failures_source_check
    CHECK (source IN ('workflow', 'delivery', 'action', 'check', 'outage', 'turn', 'provider', 'budget', 'skipped')),
  ADD COLUMN count integer NOT NULL DEFAULT 1 CHECK (count >= 1),
  ADD COLUMN last_at timestamptz,
  ADD COLUMN fingerprint text;
CREATE INDEX failures_streak_idx ON assistant.failures(source, user_id, id DESC);
`,
  },
  {
    version: 20,
    name: "a run's limit as a setting: the deadline the agent passes to its tools",
    sql: `
-- The longest one run of the agent may take (up to the agent workflow's own limit): its tools stop at it.
ALTER TABLE assistant.instance_settings
  ADD COLUMN run_limit_seconds integer NOT NULL DEFAULT 1800 CHECK (run_limit_seconds BETWEEN 10 AND 1800);
`,
  },
  {
    version: 21,
    name: "approvals by effect: the operator's rule per tool, and turns that carry outside content",
    sql: `
-- {"<tool>": "never" | "ask-user" | "ask-operator"}; a tool not named keeps its registry default.
ALTER TABLE assistant.instance_settings
  ADD COLUMN tool_approvals jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(tool_approvals) = 'object');
-- When a turn's run first called a tool that brings outside text (a page, search results, a tool's answer): from then
-- on its changes need a yes, and so does a fetch of a URL the user never wrote.
ALTER TABLE assistant.turns ADD COLUMN outside_content_at timestamptz;
-- The links a turn's web search returned: reading one of them is no URL the model made up.
CREATE TABLE assistant.turn_links (
  turn_id bigint NOT NULL REFERENCES assistant.turns(id) ON DELETE CASCADE,
  url text NOT NULL,
  PRIMARY KEY (turn_id, url)
);
`,
  },
  {
    version: 22,
    name: 'the memory write gate and a graph that keeps itself: subjects, evidence, confirmation, history, aliases',
    sql: `
-- subject_key: what a fact is about ("my accountant", "anna's number"), normalised; a later fact of the same subject
-- that says it changes it supersedes it (docs/ASSISTANT.md, Memory and the knowledge graph). content_key: the sorted
-- distinct words of the content, for exact near-duplicates. evidence: the quoted words a captured fact came from.
-- confirmed: false for a fact captured from a turn that carried outside content, until the user confirms it.
-- superseded_by/superseded_at: the memory that replaced this one (kept as history, never recalled).
-- contradicts: an earlier memory of the same subject this one disagrees with (both kept).
ALTER TABLE assistant.memories
  ADD COLUMN subject_key text,
  ADD COLUMN content_key text,
  ADD COLUMN evidence text,
  ADD COLUMN confirmed boolean NOT NULL DEFAULT true,
  ADD COLUMN superseded_by bigint REFERENCES assistant.memories(id) ON DELETE SET NULL,
  ADD COLUMN superseded_at timestamptz,
  ADD COLUMN contradicts bigint REFERENCES assistant.memories(id) ON DELETE SET NULL;
CREATE INDEX memories_subject_idx ON assistant.memories(user_id, subject_key)
  WHERE subject_key IS NOT NULL AND superseded_at IS NULL;
CREATE INDEX memories_content_key_idx ON assistant.memories(user_id, content_key) WHERE superseded_at IS NULL;
CREATE INDEX memories_superseded_by_idx ON assistant.memories(superseded_by) WHERE superseded_by IS NOT NULL;
CREATE INDEX memories_contradicts_idx ON assistant.memories(contradicts) WHERE contradicts IS NOT NULL;
-- Other names an entity is known by ("Stefan" for "Stefan Huber"), as written and normalised.
ALTER TABLE assistant.entities
  ADD COLUMN aliases text[] NOT NULL DEFAULT '{}',
  ADD COLUMN alias_keys text[] NOT NULL DEFAULT '{}';
CREATE INDEX entities_alias_keys_idx ON assistant.entities USING gin (alias_keys);
-- Where a relation came from (the quoted words), and the current relations of a type, for single-valued ones.
ALTER TABLE assistant.relations ADD COLUMN evidence text;
CREATE INDEX relations_type_idx ON assistant.relations(user_id, type) WHERE valid_to IS NULL;
`,
  },
  {
    version: 23,
    name: "the Judge's threshold for the judge approval rule",
    sql: `
-- Under a tool's "judge" rule (tool_approvals), the user is asked when the Judge's probability that they would want
-- to be asked is at or above this.
ALTER TABLE assistant.instance_settings
  ADD COLUMN approval_judge_threshold numeric(4, 3) NOT NULL DEFAULT 0.5
    CHECK (approval_judge_threshold BETWEEN 0 AND 1);
`,
  },
  {
    version: 24,
    name: 'memory capture: a cursor per session, the idle minutes before a batch, failures of source capture',
    sql: `
-- The last turn of a session that capture has read (extracted, or dropped after a second invalid answer). Sessions
-- of today start at their latest turn: capture reads the conversations from now on, not the whole history.
CREATE TABLE assistant.capture_cursors (
  user_id uuid NOT NULL REFERENCES assistant.users(id) ON DELETE CASCADE,
  session_id text NOT NULL,
  last_turn_id bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (user_id, session_id)
);
INSERT INTO assistant.capture_cursors (user_id, session_id, last_turn_id)
  SELECT user_id, session_id, max(id) FROM assistant.turns GROUP BY user_id, session_id;
-- A session is captured once its last turn is this many minutes old (0: capture off).
ALTER TABLE assistant.instance_settings
  ADD COLUMN capture_idle_minutes integer NOT NULL DEFAULT 5 CHECK (capture_idle_minutes BETWEEN 0 AND 1440);
-- capture: a batch whose extraction failed validation twice, dropped.
ALTER TABLE assistant.failures DROP CONSTRAINT failures_source_check;
ALTER TABLE assistant.failures
  ADD CONSTRAINT failures_source_check CHECK (source IN
    ('workflow', 'delivery', 'action', 'check', 'outage', 'turn', 'provider', 'budget', 'skipped', 'capture'));
`,
  },
  {
    version: 25,
    name: 'memory consolidation: pinned memories, folds kept as history, and the ledger of each nightly pass',
    sql: `
-- pinned: never folded by consolidation. folded_into/folded_at: the memory (a merge's survivor or a summary) this one
-- was merged or folded into, and when; kept as history, never recalled, restorable by id for 30 days.
ALTER TABLE assistant.memories
  ADD COLUMN pinned boolean NOT NULL DEFAULT false,
  ADD COLUMN folded_into bigint REFERENCES assistant.memories(id) ON DELETE SET NULL,
  ADD COLUMN folded_at timestamptz;
CREATE INDEX memories_folded_into_idx ON assistant.memories(folded_into) WHERE folded_into IS NOT NULL;
-- One row per consolidation of a user: when, the budget and the live memories before and after.
CREATE TABLE assistant.consolidation_runs (
  id bigserial PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES assistant.users(id) ON DELETE CASCADE,
  ran_at timestamptz NOT NULL,
  budget integer NOT NULL CHECK (budget >= 1),
  live_before integer NOT NULL,
  live_after integer NOT NULL
);
CREATE INDEX consolidation_runs_user_idx ON assistant.consolidation_runs(user_id, ran_at DESC);
-- What a run did: memory_ids merged (repeats) or folded (old, low-value) into into_id.
CREATE TABLE assistant.consolidation_entries (
  id bigserial PRIMARY KEY,
  run_id bigint NOT NULL REFERENCES assistant.consolidation_runs(id) ON DELETE CASCADE,
  action text NOT NULL CHECK (action IN ('merged', 'folded')),
  into_id bigint REFERENCES assistant.memories(id) ON DELETE SET NULL,
  memory_ids bigint[] NOT NULL
);
CREATE INDEX consolidation_entries_run_idx ON assistant.consolidation_entries(run_id);
`,
  },
  {
    version: 26,
    name: 'memory consolidation: the live memories a user keeps (0: the nightly pass off), the entities re-summarised',
    sql: `
ALTER TABLE assistant.instance_settings
  ADD COLUMN memory_budget integer NOT NULL DEFAULT 2000 CHECK (memory_budget BETWEEN 0 AND 1000000);
-- The entities whose summaries a run rewrote from their memories (their names), for the ledger.
ALTER TABLE assistant.consolidation_runs ADD COLUMN entities_summarised text[] NOT NULL DEFAULT '{}';
-- false: the run stopped at its time limit with work left (the user is due again at once).
ALTER TABLE assistant.consolidation_runs ADD COLUMN complete boolean NOT NULL DEFAULT true;
`,
  },
  {
    version: 27,
    name: 'recall at a million memories: a covering index for the newest-first arms, sign bits of each embedding',
    sql: `
-- Recall's capped arms (common words, names) read a user's newest current memories until enough match; this index
-- holds everything they test, so they read no table rows (an index-only scan).
CREATE INDEX memories_recall_recent_idx ON assistant.memories (user_id, created_at DESC)
  INCLUDE (id, search_vector, names, confirmed, kind) WHERE superseded_at IS NULL AND folded_at IS NULL;
-- Recall by meaning without pgvector: an embedding's sign bits (1 where a dimension is positive), one bit a
-- dimension. Their Hamming distance to the query's, over the covering index below, picks the candidates whose exact
-- cosine recall then computes: every memory of the user is compared, at a few bytes each.
CREATE FUNCTION assistant.embedding_signs(embedding real[]) RETURNS varbit
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN (SELECT string_agg(CASE WHEN x > 0 THEN '1' ELSE '0' END, '' ORDER BY i)
            FROM unnest(embedding) WITH ORDINALITY AS t(x, i))::varbit;
-- Kept by a trigger when the embedding is written (a generated column would be recomputed on every update).
ALTER TABLE assistant.memories ADD COLUMN embedding_signs varbit;
CREATE FUNCTION assistant.memories_embedding_signs() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  NEW.embedding_signs := assistant.embedding_signs(NEW.embedding);
  RETURN NEW;
END $fn$;
CREATE TRIGGER memories_embedding_signs BEFORE INSERT OR UPDATE OF embedding ON assistant.memories
  FOR EACH ROW EXECUTE FUNCTION assistant.memories_embedding_signs();
UPDATE assistant.memories SET embedding_signs = assistant.embedding_signs(embedding) WHERE embedding IS NOT NULL;
CREATE INDEX memories_embedding_signs_idx ON assistant.memories (user_id, embedding_model)
  INCLUDE (id, embedding_signs, confirmed, kind)
  WHERE embedding_signs IS NOT NULL AND superseded_at IS NULL AND folded_at IS NULL;
`,
  },
  {
    version: 28,
    name: 'several people on one install: the DM policy per channel, the people, pairing codes and their attempts',
    sql: `
-- Who may talk on each channel: {"<identity channel>": {"policy": "owner"|"pairing"|"allowlist"|"open",
-- "allow": ["<external id>", ...]}}; a channel not named keeps its default (people/dm-policy.ts).
ALTER TABLE assistant.instance_settings
  ADD COLUMN dm_policies jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(dm_policies) = 'object');
-- The people the owner let in (by a pairing code or an allow list): each is their own user. removed_at: the owner
-- removed them (their identities are gone, so they no longer reach the assistant; their data is kept).
CREATE TABLE assistant.people (
  user_id uuid PRIMARY KEY REFERENCES assistant.users(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (name <> '' AND length(name) <= 100),
  added_at timestamptz NOT NULL,
  added_by text NOT NULL CHECK (added_by IN ('pairing', 'allowlist')),
  removed_at timestamptz
);
-- One-time pairing codes, stored as their SHA-256 only. for_user_id: the code pairs another channel to that user;
-- null: it makes a new person, named person_name.
CREATE TABLE assistant.pairing_codes (
  id bigserial PRIMARY KEY,
  code_hash text NOT NULL UNIQUE CHECK (code_hash ~ '^[0-9a-f]{64}$'),
  issued_by uuid NOT NULL REFERENCES assistant.users(id) ON DELETE CASCADE,
  for_user_id uuid REFERENCES assistant.users(id) ON DELETE CASCADE,
  person_name text CHECK (person_name <> '' AND length(person_name) <= 100),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  used_by text
);
CREATE INDEX pairing_codes_open_idx ON assistant.pairing_codes(expires_at) WHERE used_at IS NULL;
-- Wrong, expired or used codes sent by strangers: the attempts a sender (and everyone together) may make are limited.
CREATE TABLE assistant.pairing_attempts (
  id bigserial PRIMARY KEY,
  identity text NOT NULL,
  attempted_at timestamptz NOT NULL
);
CREATE INDEX pairing_attempts_identity_idx ON assistant.pairing_attempts(identity, attempted_at);
CREATE INDEX pairing_attempts_at_idx ON assistant.pairing_attempts(attempted_at);
`,
  },
  {
    version: 29,
    name: 'email as a channel: email:<address> identities, and proactive messages to a user by email',
    sql: `
-- An email address (lower case; identities.ts checks its form) as an identity.
ALTER TABLE assistant.identities DROP CONSTRAINT identities_identity_check;
ALTER TABLE assistant.identities ADD CONSTRAINT identities_identity_check
  CHECK (identity ~ '^(telegram:-?[0-9]+|api:.+|email:[^@[:space:]]+@[^@[:space:]]+)$');
ALTER TABLE assistant.outbox DROP CONSTRAINT outbox_channel_check;
ALTER TABLE assistant.outbox
  ADD CONSTRAINT outbox_channel_check CHECK (channel IN ('telegram', 'webhook', 'pull', 'email'));
`,
  },
  {
    version: 30,
    name: 'Slack as a channel: slack:<user id> identities, and proactive messages to a Slack user',
    sql: `
-- A Slack user id (U… or W… in an Enterprise Grid) as an identity.
ALTER TABLE assistant.identities DROP CONSTRAINT identities_identity_check;
ALTER TABLE assistant.identities ADD CONSTRAINT identities_identity_check
  CHECK (identity ~ '^(telegram:-?[0-9]+|api:.+|email:[^@[:space:]]+@[^@[:space:]]+|slack:[UW][A-Z0-9]{2,30})$');
ALTER TABLE assistant.outbox DROP CONSTRAINT outbox_channel_check;
ALTER TABLE assistant.outbox
  ADD CONSTRAINT outbox_channel_check CHECK (channel IN ('telegram', 'webhook', 'pull', 'email', 'slack'));
`,
  },
  {
    version: 31,
    name: "the web chat's delivery receipts: a pulled message the console's chat page has shown is delivered on 'web'",
    sql: `
-- A stored message (channel 'pull') becomes channel 'web', status 'delivered', once the web chat shows it.
ALTER TABLE assistant.outbox DROP CONSTRAINT outbox_channel_check;
ALTER TABLE assistant.outbox
  ADD CONSTRAINT outbox_channel_check CHECK (channel IN ('telegram', 'webhook', 'pull', 'email', 'slack', 'web'));
`,
  },
  {
    version: 32,
    name: "recall's rare words newest first at any age: each word of a current memory keyed by the week it was made",
    sql: `
-- Recall takes the newest matches of words in many memories. A tsvector GIN index returns every match (thousands at
-- a million memories), each a table row to read before the newest can be picked; this index keys each word of a
-- current memory by its week (UTC, weeks since 1970), so recall asks for the words of this week, then of the two
-- before, then four, … and reads only the rows of the weeks it needed.
CREATE FUNCTION assistant.recall_week(at timestamptz) RETURNS integer
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN floor(date_part('epoch', at AT TIME ZONE 'UTC') / 604800)::integer;
CREATE FUNCTION assistant.dated_lexemes(vector tsvector, at timestamptz) RETURNS text[]
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN ARRAY(SELECT assistant.recall_week(at) || ' ' || lexeme FROM unnest(tsvector_to_array(vector)) AS lexeme);
-- The keys of some words over a range of weeks (oldest to newest, both included), as dated_lexemes writes them.
CREATE FUNCTION assistant.dated_keys(lexemes text[], newest integer, oldest integer) RETURNS text[]
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN ARRAY(SELECT week || ' ' || lexeme FROM unnest(lexemes) AS lexeme, generate_series(oldest, newest) AS week);
CREATE INDEX memories_dated_lexemes_idx ON assistant.memories
  USING gin (assistant.dated_lexemes(search_vector, created_at)) WITH (fastupdate = off)
  WHERE superseded_at IS NULL AND folded_at IS NULL;
`,
  },
];
