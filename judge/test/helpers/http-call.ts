// One HTTP call to a test server: the status, headers, raw text and (when it is JSON) the parsed body.

export interface CallInit {
  method?: string;
  body?: string | Buffer;
  /** Sent as `Authorization: Bearer <key>` (unless `headers` has its own); absent or '': no key. */
  key?: string;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

export async function call(baseUrl: string, path: string, init: CallInit = {}): Promise<CallResult> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...(init.key ? { authorization: `Bearer ${init.key}` } : {}),
    ...init.headers,
  };
  const response = await fetch(baseUrl + path, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body,
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: keep the text */
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** A small valid POST /v1/systemone body. */
export const JUDGE_BODY = {
  model: 'jev-latest',
  state: 'A customer writes that the invoice is wrong.',
  questions: {
    urgent: { type: 'noul', instructions: 'Urgent?' },
    team: { type: 'choice', criteria: { billing: null, support: 'anything else' } },
    tone: { type: 'score', criteria: ['calm', 'annoyed', 'angry'] },
  },
};
