// How deep a webhook body nests: the judge server refuses JSON nested deeper than its `limits.maxJsonDepth` (400)
// before reading it, and so does the wrapper, before forwarding a body n8n has already parsed. The limit and the
// refusal's sentence are the judge's own (`DEFAULT_MAX_JSON_DEPTH`, `tooDeepMessage` from systemone-judge/core).

/**
 * Whether a parsed JSON value nests objects and arrays deeper than `limit` (`{}` and `[]` are one level, as the
 * server counts brackets). Iterative, and it stops at the first path past the limit.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > limit) return true;
    const children = Array.isArray(current) ? current : Object.values(current as Record<string, unknown>);
    for (const child of children) {
      if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
    }
  }
  return false;
}
