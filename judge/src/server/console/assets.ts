// The console's static pages (assets/ next to this file, copied to dist by the build), served like the playground's:
// the console and the web chat, each with its own script after common.js, the helpers both use.
import { createStaticFiles, type StaticFiles } from '../static-files';

export const CONSOLE_PATH = '/console';

export const consoleAssets = (): StaticFiles =>
  createStaticFiles('console', __dirname, {
    [CONSOLE_PATH]: { file: 'index.html', type: 'text/html; charset=utf-8' },
    [`${CONSOLE_PATH}/common.js`]: { file: 'common.js', type: 'text/javascript; charset=utf-8' },
    [`${CONSOLE_PATH}/app.js`]: { file: 'app.js', type: 'text/javascript; charset=utf-8' },
    [`${CONSOLE_PATH}/app.css`]: { file: 'app.css', type: 'text/css; charset=utf-8' },
    [`${CONSOLE_PATH}/chat`]: { file: 'chat.html', type: 'text/html; charset=utf-8' },
    [`${CONSOLE_PATH}/chat.js`]: { file: 'chat.js', type: 'text/javascript; charset=utf-8' },
    [`${CONSOLE_PATH}/chat.css`]: { file: 'chat.css', type: 'text/css; charset=utf-8' },
  });
