/**
 * `tsx ml-assets/registry.ts` (run by `npm install`, and by set-up, `npm start`, `npm test` and
 * `npm run deploy` before they build): gathers the dataset definitions into the file the Worker and
 * the SPA are built with. Imports nothing that needs that file.
 */
import path from 'node:path';
import { registryPath, writeDatasetRegistry } from './lib/dataset-registry';

try {
  const ids = writeDatasetRegistry().map((d) => d.id);
  console.log(`datasets: ${ids.join(', ')} → ${path.relative(process.cwd(), registryPath())}`);
} catch (err) {
  console.error((err as Error).message);
  process.exitCode = 2;
}
