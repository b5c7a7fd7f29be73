// The playground: GET /playground, a single static page (assets/ next to this file, copied to dist by the build)
// for trying questions against this server, and the routes it uses:
//   GET  /playground/config  whether the page may judge without a key, and the open mode's limits (no key needed)
//   POST /playground/judge   judge without a key: only when the open mode is on (403 otherwise, saying why),
//                            under its own rate limit and token quota, same-origin only, never a way around keys
// With a key the page calls POST /v1/systemone (and GET /v1/models) like any client.
import { DEFAULT_ALIAS } from '../../engine/engine';
import { ApiError } from '../../protocol/errors';
import { decideStatus } from './access';
import { playgroundAssets, PLAYGROUND_PATH } from './assets';
import { judgeWithoutKey, type OpenJudge } from './judge';
import { RequestRate, TokenQuota } from './quota';
import { DEFAULT_PLAYGROUND, type PlaygroundSettings } from './settings';
import type { Playground, PlaygroundContext, PlaygroundStatus } from './types';

export { DEFAULT_PLAYGROUND, readPlaygroundSettings, type PlaygroundSettings } from './settings';
export { isLoopbackAddress } from './access';
export { PLAYGROUND_PATH } from './assets';
export type { Playground, PlaygroundContext, PlaygroundLogLine, PlaygroundStatus } from './types';

export function createPlayground(context: PlaygroundContext): Playground {
  const settings: PlaygroundSettings = { ...DEFAULT_PLAYGROUND, ...(context.settings ?? {}) };
  const now = context.now ?? Date.now;
  const open: OpenJudge = {
    context,
    settings,
    rate: new RequestRate(settings.requestsPerMinute, 60_000, now),
    quota: new TokenQuota(settings.tokensPerHour, 3_600_000, now),
  };
  const assets = playgroundAssets();
  let decided: PlaygroundStatus | undefined;
  // Decided on first use: the server's address is known only once it listens.
  const status = (): PlaygroundStatus => (decided ??= decideStatus(settings, context.address()));

  return {
    handles: (routePath) =>
      settings.enabled && (routePath === PLAYGROUND_PATH || routePath.startsWith(`${PLAYGROUND_PATH}/`)),
    status,
    async route(req, res, line, timing) {
      const routePath = line.path;
      if (routePath === `${PLAYGROUND_PATH}/judge`) {
        if (req.method !== 'POST') throw new ApiError(405, 'Use POST /playground/judge.', 'method_not_allowed');
        return judgeWithoutKey(open, status(), req, res, line, timing);
      }
      if (req.method !== 'GET') throw new ApiError(405, `Use GET ${routePath}.`, 'method_not_allowed');
      if (routePath === `${PLAYGROUND_PATH}/config`) {
        const state = status();
        return [
          200,
          {
            open: state.open,
            reason: state.reason,
            defaultModel: DEFAULT_ALIAS,
            limits: { requestsPerMinute: settings.requestsPerMinute, tokensPerHour: settings.tokensPerHour },
            ...(state.open ? { tokensLeft: open.quota.left(), models: context.engine.listModels() } : {}),
          },
        ];
      }
      if (assets.has(routePath)) return assets.serve(res, line.request_id, routePath);
      throw new ApiError(404, `No route ${routePath}.`, 'not_found');
    },
  };
}
