/**
 * The house, one way down (../shared/STYLE.md, "Layers, one way down"; docs/architecture-and-ml.md,
 * "Layers"): `npm test` runs this check over every import of the project's own code, type-only
 * ones included, and fails on a circle between files or an arrow from a lower layer up to a
 * higher one.
 *
 * worker/, top to bottom: the entry (index.ts, app.ts), workflows, routes, middleware (with the
 * Hono environment env.ts and environment.ts), services, db, ml, schemas. A file may import its
 * own layer and the layers below it. The leaves (storage, errors, validate and the small helpers
 * beside them) take only schemas and each other, and every layer may take them, except ml and
 * schemas, which stay pure. web/ takes from worker/ only schemas/ and the type of the API
 * (app.ts). ml-assets/ (set-up) takes worker/ml, worker/schemas, the R2 key layout it seeds under
 * (worker/storage/r2.ts) and its own lib/ (wrangler's calls among it), never scripts/, bench/ or
 * test/, which sit above everything.
 */
const WORKER_LAYERS = [
  ['entry', '^worker/(index|app)\\.ts$'],
  ['workflows', '^worker/workflows/'],
  ['routes', '^worker/routes/'],
  ['middleware', '^worker/(middleware/|env\\.ts$|environment\\.ts$)'],
  ['services', '^worker/services/'],
  ['db', '^worker/db/'],
  ['ml', '^worker/ml/'],
  ['schemas', '^worker/schemas/'],
];
const LEAVES = '^worker/(storage/|errors\\.ts$|validate\\.ts$|digest\\.ts$|study-codes\\.ts$|request-meta\\.ts$|static-assets\\.ts$)';
const layerPath = (name) => WORKER_LAYERS.find(([n]) => n === name)[1];

/** For each layer, no import of any layer above it. */
const noArrowUp = WORKER_LAYERS.slice(1).map(([name, path], i) => ({
  name: `no-arrow-up-from-${name}`,
  comment: `worker/ ${name} imports only its own layer and those below it (${WORKER_LAYERS.slice(i + 2).map(([n]) => n).join(', ') || 'none'}) and the leaves`,
  severity: 'error',
  from: { path },
  to: { path: WORKER_LAYERS.slice(0, i + 1).map(([, p]) => p) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No two files import each other, directly or round a loop: the fact both need moves down into a module both import',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...noArrowUp,
    {
      name: 'leaves-take-only-schemas',
      comment: 'storage, errors, validate and the helpers beside them take only schemas and each other',
      severity: 'error',
      from: { path: LEAVES },
      to: { path: WORKER_LAYERS.filter(([n]) => n !== 'schemas').map(([, p]) => p) },
    },
    {
      name: 'ml-and-schemas-stay-pure',
      comment: 'worker/ml and worker/schemas take no leaf (storage, errors…), no Hono, no drizzle, no Cloudflare binding and no Node built-in',
      severity: 'error',
      from: { path: [layerPath('ml'), layerPath('schemas')] },
      to: { path: [LEAVES, '^node_modules/(hono|drizzle-orm|@cloudflare)/'] },
    },
    {
      name: 'ml-and-schemas-no-node',
      comment: 'worker/ml and worker/schemas run in the Worker and the browser: no Node built-in',
      severity: 'error',
      from: { path: [layerPath('ml'), layerPath('schemas')] },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'worker-stays-inside',
      comment: 'worker/ takes nothing from web/, scripts/, bench/, test/ or set-up code (only the registry set-up generates, ml-assets/generated/)',
      severity: 'error',
      from: { path: '^worker/' },
      to: { path: ['^(web|scripts|bench|test)/', '^ml-assets/(?!generated/)'] },
    },
    {
      name: 'web-takes-schemas-only',
      comment: 'web/ takes from worker/ only schemas/ (and the type of the API, app.ts)',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^worker/', pathNot: ['^worker/schemas/', '^worker/app\\.ts$'] },
    },
    {
      name: 'web-takes-the-api-type-only',
      comment: 'web/ takes worker/app.ts for its AppType alone (import type), never its code',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^worker/app\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'web-below-the-tools',
      comment: 'web/ takes nothing from scripts/, bench/, test/ or ml-assets/',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^(scripts|bench|test|ml-assets)/' },
    },
    {
      name: 'set-up-below-the-scripts',
      comment: 'ml-assets/ (set-up) takes nothing from scripts/, bench/, test/ or web/: its helpers live in ml-assets/lib',
      severity: 'error',
      from: { path: '^ml-assets/' },
      to: { path: '^(scripts|bench|test|web)/' },
    },
    {
      name: 'set-up-takes-ml-and-schemas',
      comment: 'ml-assets/ takes from worker/ only ml/ and schemas/, and the R2 key layout it seeds under (storage/r2.ts, a leaf)',
      severity: 'error',
      from: { path: '^ml-assets/' },
      to: { path: '^worker/', pathNot: ['^worker/(ml|schemas)/', '^worker/storage/r2\\.ts$'] },
    },
  ],
  options: {
    // Type-only imports count: a loop of types is still a loop a reader has to follow.
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    // Generated by `wrangler types`; nothing imports it.
    exclude: { path: '^worker/worker-configuration\\.d\\.ts$' },
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.json'] },
  },
};
