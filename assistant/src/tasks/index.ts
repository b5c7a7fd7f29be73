// Tasks: title, notes, status, priority, due time, parent, tags; overdue and due today derived in the query.
export * from './tasks';
