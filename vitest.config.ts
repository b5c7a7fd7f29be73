import { defineConfig } from 'vitest/config';

// One runner, five projects: the judgement package, the assistant's domain (and its time handling again under another
// server zone), the n8n nodes with the scripts, fakes and workflow checks (unit), and end-to-end tests on a real n8n.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'judge',
          include: ['judge/test/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'assistant',
          include: ['assistant/test/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      // The same time handling again with the server in another zone (+12:45/+13:45, with DST): users' times must
      // never depend on the server's zone.
      {
        test: {
          name: 'assistant-tz',
          include: [
            'assistant/test/schedule/**/*.test.ts',
            'assistant/test/reminders/**/*.test.ts',
            'assistant/test/tasks/**/*.test.ts',
          ],
          env: { TZ: 'Pacific/Chatham' },
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'nodes',
          include: [
            'test/nodes/**/*.test.ts',
            'test/fakes/**/*.test.ts',
            'test/scripts/**/*.test.ts',
            'test/workflows/**/*.test.ts',
          ],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      // E2E=0 leaves the e2e project out (loudly); by default, and in CI, the real n8n must be there.
      ...(process.env.E2E === '0'
        ? (console.warn('\n!!! E2E=0: the e2e tests (real n8n + Postgres) are SKIPPED. !!!\n'), [])
        : [
            {
              test: {
                name: 'e2e',
                include: ['test/e2e/**/*.test.ts'],
                // One stack (Postgres 17 + n8n) for the whole run: test/e2e/setup/global-setup.ts.
                globalSetup: ['test/e2e/setup/global-setup.ts'],
                fileParallelism: false,
                testTimeout: 180_000,
                hookTimeout: 600_000,
              },
            },
          ]),
    ],
  },
});
