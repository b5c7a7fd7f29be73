// Every table holding a user's data, in one list: forgetting a user and merging two users walk it. A table added by
// a later feature that has a user_id column belongs here (a test checks the schema against this list).
export const USER_DATA_TABLES = [
  'memories',
  'relations',
  'entities',
  'tasks',
  'reminders',
  'scheduled_actions',
  'action_runs',
  'outbox',
  'nudge_log',
  'failures',
  'check_runs',
  'checks',
  'turn_attachments',
  'turns',
  'pending_questions',
  'user_settings',
  'capture_cursors',
  'consolidation_runs',
] as const;

/** Tables with a user_id that are about who the user is rather than what they said: kept by forget-everything. */
export const USER_IDENTITY_TABLES = ['identities', 'people'] as const;

/**
 * Tables with a user_id that count what the user's work cost and may cost (the model gateway's ledger, the user's
 * spending caps): no content, kept by forget-everything (a forgotten user's spending still counts against the caps),
 * moved when two users are merged (where both have a cap for a period, the one merged into is kept).
 */
export const USER_ACCOUNTING_TABLES = ['model_calls', 'budget_caps'] as const;
