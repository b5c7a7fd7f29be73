// Whether a judge answers through the node's "System One API" credential: GET /v1/models with its key. Asked when a
// check is added with notify_when, so a gate that cannot work is refused then, not discovered on the first change.
import type { IExecuteFunctions } from 'n8n-workflow';

import { callSystemOne, readSystemOneCredential } from '../../../shared/transport/systemOneClient';

const PROBE_TIMEOUT_MS = 10_000;

/** Null when the judge answers; otherwise why not, as a clause ("no judge answers at …"). */
export async function judgeProblem(context: IExecuteFunctions): Promise<string | null> {
  let credential;
  try {
    credential = await readSystemOneCredential(context);
  } catch {
    return 'no "System One API" credential is set on this node';
  }
  if (!credential.baseUrl) return 'the "System One API" credential has no base URL';
  try {
    const reply = await callSystemOne(context, credential, 'models', undefined, PROBE_TIMEOUT_MS);
    if (reply.statusCode === 200) return null;
    if (reply.statusCode === 401 || reply.statusCode === 403) {
      return `the judge at ${credential.baseUrl} refused the credential's key (HTTP ${reply.statusCode})`;
    }
    return `the judge at ${credential.baseUrl} answered HTTP ${reply.statusCode}`;
  } catch (error) {
    return `no judge answers at ${credential.baseUrl} (${(error as Error).message})`;
  }
}
