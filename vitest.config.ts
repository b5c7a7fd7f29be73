import { defineConfig } from 'vitest/config';

// One runner, three projects: the judgement package, the n8n nodes (unit), and end-to-end tests on a real n8n.
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
          name: 'nodes',
          include: ['test/nodes/**/*.test.ts', 'test/unit/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
