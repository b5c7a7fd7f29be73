// Which of n8n's saved executions hold a user's data: those whose data mentions the user's id (every run of the
// assistant carries it). A running or waiting execution cannot be deleted yet; it is left for n8n to finish.
export interface SavedExecution {
  id: string | number;
  status?: string;
  data?: unknown;
}

const NOT_DELETABLE = new Set(['running', 'new', 'waiting']);

export function executionsOfUser(executions: SavedExecution[], userId: string): string[] {
  if (!/^[0-9a-f-]{36}$/i.test(userId)) throw new Error(`userId: "${userId}" is not a user id`);
  const id = userId.toLowerCase();
  return executions
    .filter((execution) => !NOT_DELETABLE.has(String(execution.status)))
    .filter((execution) =>
      JSON.stringify(execution.data ?? null)
        .toLowerCase()
        .includes(id),
    )
    .map((execution) => String(execution.id));
}
