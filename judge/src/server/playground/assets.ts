// The playground's static page (assets/ next to this file, copied to dist by the build).
import { createStaticFiles, type StaticFiles } from '../static-files';

export const PLAYGROUND_PATH = '/playground';

export const playgroundAssets = (): StaticFiles =>
  createStaticFiles('playground', __dirname, {
    [PLAYGROUND_PATH]: { file: 'index.html', type: 'text/html; charset=utf-8' },
    [`${PLAYGROUND_PATH}/app.js`]: { file: 'app.js', type: 'text/javascript; charset=utf-8' },
    [`${PLAYGROUND_PATH}/app.css`]: { file: 'app.css', type: 'text/css; charset=utf-8' },
  });
