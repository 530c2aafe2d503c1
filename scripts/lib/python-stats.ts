/**
 * The reproduction test runs the all-data export's analysis/reproduce.py with Debian's Python,
 * pandas and statsmodels (never pip). Installs them from Debian's packages when missing and this
 * process may (root with apt-get), as the e2e tests' Chromium is.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Debian's interpreter, whatever python3 comes first on PATH (pyenv's has no Debian packages). */
export const PYTHON_PATH = process.env.XDL_PYTHON ?? '/usr/bin/python3';

const hasStats = () => existsSync(PYTHON_PATH) && spawnSync(PYTHON_PATH, ['-c', 'import pandas, statsmodels'], { stdio: 'ignore' }).status === 0;

export function ensurePythonStats(): void {
  if (hasStats()) return;
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !existsSync('/usr/bin/apt-get')) {
    throw new Error(`pandas and statsmodels are missing for ${PYTHON_PATH}. Install Debian's packages: sudo apt-get install -y python3-pandas python3-statsmodels`);
  }
  console.log("Installing python3-pandas and python3-statsmodels from Debian packages…");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'python3-pandas', 'python3-statsmodels'], { stdio: 'inherit', env });
}
