/**
 * A platform with a researcher's own fourth dataset, added as a definition and a CSV only (no code):
 * the made-up loan-approval task (test/helpers/synthetic-dataset.ts) beside the three shipped
 * definitions, in a temporary definitions folder and data folder. Set-up builds its pools and model,
 * the SPA and the Worker are built with the four, and a local Worker serves them. The platform's
 * own registry of datasets is restored afterwards.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { writeDatasetRegistry } from '../../ml-assets/lib/dataset-registry';
import { dataDir, projectRoot } from '../../ml-assets/lib/paths';
import { prepareLocalState } from '../../ml-assets/lib/seed';
import { buildSpa } from '../../ml-assets/lib/wrangler';
import { serveForTests } from '../e2e/test-worker';
import { LOAN_FILE, LOAN_ID, loanCsv, loanDefinition } from '../helpers/synthetic-dataset';

export const OWN_ADMIN_PASSWORD = 'own-dataset-admin-password';

export default async function setup(project: TestProject) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'xdl-own-dataset-'));
  const definitions = path.join(root, 'datasets');
  const data = path.join(root, 'data');
  mkdirSync(definitions);
  mkdirSync(path.join(data, path.dirname(LOAN_FILE)), { recursive: true });
  const shipped = path.join(projectRoot, 'ml-assets', 'datasets');
  for (const file of readdirSync(shipped)) copyFileSync(path.join(shipped, file), path.join(definitions, file));
  for (const entry of readdirSync(dataDir())) symlinkSync(path.join(dataDir(), entry), path.join(data, entry));
  const csv = loanCsv(4000);
  writeFileSync(path.join(data, LOAN_FILE), csv);
  writeFileSync(path.join(definitions, `${LOAN_ID}.json`), JSON.stringify(loanDefinition(createHash('sha256').update(csv).digest('hex')), null, 2));

  Object.assign(process.env, { XDL_DATASETS_DIR: definitions, XDL_DATA_DIR: data, XDL_GENERATED_DIR: path.join(root, 'generated') });
  writeDatasetRegistry();
  const persistTo = path.join(root, 'state');
  await buildSpa({ stdio: 'ignore' });
  await prepareLocalState(persistTo);
  // The keys the e2e helpers read (test/e2e/global-setup.ts declares them), so they serve this Worker.
  const stop = await serveForTests(project, { persistTo, adminPassword: OWN_ADMIN_PASSWORD, tempDir: root });
  return async () => {
    await stop();
    for (const key of ['XDL_DATASETS_DIR', 'XDL_DATA_DIR', 'XDL_GENERATED_DIR']) delete process.env[key];
    writeDatasetRegistry();
  };
}
