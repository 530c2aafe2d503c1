import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';
import { textParts } from './scripts/lib/text-parts-plugin';
import { runtimeBuiltModel } from './test/helpers/runtime-build';

const root = import.meta.dirname;

/** The analysis scripts as text, as wrangler.toml's `[[rules]] type = "Text"` bundles them for the Worker. */
const textModules: Plugin = {
  name: 'xdl-text-modules',
  enforce: 'pre',
  transform(code, id) {
    return /\.(py|R)$/.test(id) ? { code: `export default ${JSON.stringify(code)};`, map: null } : undefined;
  },
};

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(root, 'migrations'));
  // The LightGBM user-model fixture, handed to workerd to prove the ML core is exact there too.
  const fixturesRoot = process.env.XDL_FIXTURES_DIR ?? path.join(root, '..', 'shared', 'fixtures', 'lightgbm');
  const fixtureDir = path.join(fixturesRoot, 'adult_income', 'user_model');
  const readFixture = (dir: string, name: string): Record<string, never> => JSON.parse(readFileSync(path.join(dir, name), 'utf8'));
  // Missing fixtures fail the test that needs them, not every project's start-up.
  const mlFixture = existsSync(fixtureDir)
    ? { model: readFixture(fixtureDir, 'model.json'), encoding: readFixture(fixtureDir, 'encoding.json'), expected: readFixture(fixtureDir, 'expected.json') }
    : null;
  // A model a researcher would bring: the real LightGBM COMPAS dump with its encoding (the upload tests).
  const compasDir = path.join(fixturesRoot, 'compas', 'ai_model');
  const compasFixture = existsSync(compasDir) ? { model: readFixture(compasDir, 'model.json'), encoding: readFixture(compasDir, 'encoding.json') } : null;
  // Speed dating's, whose categories are the dataset's integer codes (race "1" → 1 …).
  const speedDatingDir = path.join(fixturesRoot, 'speed_dating', 'ai_model');
  const speedDatingFixture = existsSync(speedDatingDir) ? { model: readFixture(speedDatingDir, 'model.json'), encoding: readFixture(speedDatingDir, 'encoding.json') } : null;
  // The same dataset built in Node, for workerd to build again and compare byte for byte.
  const nodeBuiltModel = runtimeBuiltModel();
  return {
    test: {
      projects: [
        {
          // Runs inside workerd with the real D1 and R2 bindings from wrangler.toml.
          plugins: [
            textModules,
            cloudflareTest({
              wrangler: { configPath: './wrangler.toml' },
              miniflare: {
                bindings: {
                  TEST_MIGRATIONS: migrations,
                  ADMIN_PASSWORD: 'test-admin-password',
                  ML_FIXTURE: mlFixture,
                  COMPAS_AI_FIXTURE: compasFixture,
                  SPEED_DATING_AI_FIXTURE: speedDatingFixture,
                  NODE_BUILT_MODEL: nodeBuiltModel,
                  // Generated calls of the fuzzing suite in all (test/worker/fuzz.test.ts).
                  XDL_FUZZ_RUNS: Number(process.env.XDL_FUZZ_RUNS ?? 10_000),
                },
              },
            }),
          ],
          test: {
            name: 'worker',
            include: ['test/worker/**/*.test.ts'],
            // A budget, not a speed check: on a slow 2-core VM the per-client limit tests (some 125
            // calls each) and the race trials take longer than vitest's 5 s default, and up to 40 s
            // when `npm test` runs this suite beside the e2e suite's browser.
            testTimeout: 120_000,
            setupFiles: ['test/worker/apply-migrations.ts'],
          },
        },
        {
          // Pure TypeScript ML core and set-up scripts, in Node.
          test: {
            name: 'ml',
            include: ['test/ml/**/*.test.ts'],
            environment: 'node',
            testTimeout: 120_000,
          },
        },
        {
          plugins: [react(), textParts()],
          test: {
            name: 'web',
            include: ['test/web/**/*.test.{ts,tsx}'],
            environment: 'happy-dom',
            setupFiles: ['test/web/setup.ts'],
          },
        },
        {
          // The whole study through the API of a local Worker, with faults and a SIGKILL (starts its own Worker).
          test: {
            name: 'faults',
            include: ['test/faults/**/*.test.ts'],
            environment: 'node',
            testTimeout: 30 * 60_000,
            hookTimeout: 240_000,
          },
        },
        {
          // `npm run deploy -- --local`, then its state served as the deployed copy runs (starts its own Worker).
          test: {
            name: 'deploy',
            include: ['test/deploy/**/*.test.ts'],
            environment: 'node',
            testTimeout: 10 * 60_000,
            hookTimeout: 20 * 60_000,
          },
        },
        {
          test: {
            // A fourth dataset added as a definition and a CSV only: its own Worker, built with the four.
            name: 'own-dataset',
            include: ['test/own-dataset/**/*.test.ts'],
            environment: 'node',
            globalSetup: ['test/own-dataset/global-setup.ts'],
            testTimeout: 120_000,
            hookTimeout: 300_000,
            fileParallelism: false,
          },
        },
        {
          test: {
            // The main experiment under each between-subject condition of a several-condition design (test/conditions/design.ts).
            name: 'conditions',
            include: ['test/conditions/**/*.test.ts'],
            environment: 'node',
            globalSetup: ['test/conditions/global-setup.ts'],
            testTimeout: 120_000,
            hookTimeout: 300_000,
            fileParallelism: false,
          },
        },
        {
          test: {
            name: 'e2e',
            include: ['test/e2e/**/*.test.ts'],
            environment: 'node',
            globalSetup: ['test/e2e/global-setup.ts'],
            testTimeout: 60_000,
            hookTimeout: 240_000,
            // One Worker and one browser serve every e2e file.
            fileParallelism: false,
          },
        },
      ],
    },
  };
});
