/** Where set-up reads the shared originals and fixtures, and writes generated assets. */
import path from 'node:path';

export const projectRoot = path.resolve(import.meta.dirname, '..', '..');

/** The three original datasets; override with XDL_DATA_DIR. */
export const dataDir = () => path.resolve(process.env.XDL_DATA_DIR ?? path.join(projectRoot, '..', 'shared', 'data'));

/** LightGBM reference fixtures; override with XDL_FIXTURES_DIR. */
export const fixturesDir = () =>
  path.resolve(process.env.XDL_FIXTURES_DIR ?? path.join(projectRoot, '..', 'shared', 'fixtures', 'lightgbm'));

/** Generated case pools and models (git-ignored). */
export const generatedDir = () => path.resolve(process.env.XDL_GENERATED_DIR ?? path.join(projectRoot, 'ml-assets', 'generated'));
