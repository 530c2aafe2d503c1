/**
 * The house, one way down (issue #57): the project's own imports hold no circle between files and
 * no arrow from a lower layer up to a higher one, as `.dependency-cruiser.cjs` states the layers
 * (docs/architecture-and-ml.md, "Layers"). The rules themselves are tried on a small tree written
 * here, one breach of each, so a rule that stopped matching would fail this file too.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../ml-assets/lib/paths';
import { offlineEnv } from '../../ml-assets/lib/wrangler';

type Violation = { rule: { name: string }; from: string; to: string; cycle?: { name: string }[] };

/** The violations dependency-cruiser finds under `cwd` with the project's rules. */
function violations(cwd: string, folders: string[]): Violation[] {
  const out = execFileSync(
    path.join(projectRoot, 'node_modules', '.bin', 'depcruise'),
    ['--config', path.join(projectRoot, '.dependency-cruiser.cjs'), '--output-type', 'json', ...folders],
    { cwd, env: offlineEnv(), encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  return (JSON.parse(out) as { summary: { violations: Violation[] } }).summary.violations;
}

const described = (v: Violation) => `${v.rule.name}: ${v.from} → ${v.cycle ? v.cycle.map((c) => c.name).join(' → ') : v.to}`;

describe('the layers of the code', () => {
  it('hold: no circle between files, no arrow up, web and set-up take only what they may', () => {
    const found = violations(projectRoot, ['worker', 'web', 'scripts', 'ml-assets', 'bench', 'test']).map(described);
    expect(found).toEqual([]);
  });
});

describe('each rule of the layer check', () => {
  const tree = mkdtempSync(path.join(os.tmpdir(), 'xdl-layers-'));
  afterAll(() => rmSync(tree, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(tree, file)), { recursive: true });
    writeFileSync(path.join(tree, file), text);
  };
  // A tree shaped like the project's, with one breach of each rule beside files that keep them.
  symlinkSync(path.join(projectRoot, 'node_modules'), path.join(tree, 'node_modules'));
  write('tsconfig.base.json', JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler', jsx: 'react-jsx' } }));
  write('worker/schemas/terms.ts', "export const TERMS = ['a'] as const;\n");
  write('worker/schemas/loop-a.ts', "import { B } from './loop-b';\nexport const A = B + 1;\n");
  write('worker/schemas/loop-b.ts', "import type { A } from './loop-a';\nexport const B = 1;\nexport type T = typeof A;\n");
  write('worker/errors.ts', "import { TERMS } from './schemas/terms';\nexport const CODES = TERMS;\n");
  write('worker/ml/fit.ts', "import { rule } from '../services/rule';\nimport { CODES } from '../errors';\nimport { readFileSync } from 'node:fs';\nexport const fit = () => [rule, CODES, readFileSync];\n");
  write('worker/ml/pure.ts', "import { TERMS } from '../schemas/terms';\nexport const pure = TERMS;\n");
  write('worker/services/rule.ts', "import { pure } from '../ml/pure';\nimport { CODES } from '../errors';\nexport const rule = [pure, CODES];\n");
  write('worker/db/queries.ts', "import { handler } from '../routes/handler';\nexport const q = handler;\n");
  write('worker/routes/handler.ts', "import { rule } from '../services/rule';\nexport const handler = rule;\n");
  write('worker/app.ts', "import { handler } from './routes/handler';\nexport const app = handler;\nexport type AppType = typeof app;\n");
  write('web/page.ts', "import { rule } from '../worker/services/rule';\nimport { app } from '../worker/app';\nimport type { AppType } from '../worker/app';\nimport { TERMS } from '../worker/schemas/terms';\nexport const page = [rule, app, TERMS] as unknown as AppType;\n");
  write('scripts/lib/tool.ts', "export const tool = 1;\n");
  write('ml-assets/lib/seed.ts', "import { tool } from '../../scripts/lib/tool';\nimport { rule } from '../../worker/services/rule';\nimport { pure } from '../../worker/ml/pure';\nexport const seed = [tool, rule, pure];\n");
  write('worker/storage/keys.ts', "import { seed } from '../../ml-assets/lib/seed';\nexport const keys = seed;\n");

  const found = violations(tree, ['worker', 'web', 'scripts', 'ml-assets']).map(described).sort();

  it.each([
    ['no-circular: worker/schemas/loop-a.ts → worker/schemas/loop-b.ts → worker/schemas/loop-a.ts'],
    ['no-arrow-up-from-ml: worker/ml/fit.ts → worker/services/rule.ts'],
    ['no-arrow-up-from-db: worker/db/queries.ts → worker/routes/handler.ts'],
    ['ml-and-schemas-stay-pure: worker/ml/fit.ts → worker/errors.ts'],
    ['ml-and-schemas-no-node: worker/ml/fit.ts → fs'],
    ['web-takes-schemas-only: web/page.ts → worker/services/rule.ts'],
    ['web-takes-the-api-type-only: web/page.ts → worker/app.ts'],
    ['set-up-below-the-scripts: ml-assets/lib/seed.ts → scripts/lib/tool.ts'],
    ['set-up-takes-ml-and-schemas: ml-assets/lib/seed.ts → worker/services/rule.ts'],
    ['worker-stays-inside: worker/storage/keys.ts → ml-assets/lib/seed.ts'],
  ])('%s', (breach) => {
    expect(found).toContain(breach);
  });

  it('finds nothing else: the imports that keep the rules pass', () => {
    expect(found).toHaveLength(10);
  });
});
