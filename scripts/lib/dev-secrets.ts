/**
 * The local secrets file wrangler dev reads (.dev.vars). Created on first start with a random
 * admin password; never committed (git-ignored).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../ml-assets/lib/paths';

export const devVarsPath = path.join(projectRoot, '.dev.vars');

export function ensureDevSecrets(): { created: boolean; password: string } {
  if (existsSync(devVarsPath)) {
    const match = /^ADMIN_PASSWORD=(.*)$/m.exec(readFileSync(devVarsPath, 'utf8'));
    if (match?.[1]) return { created: false, password: match[1].trim() };
  }
  const password = randomBytes(18).toString('base64url');
  writeFileSync(
    devVarsPath,
    `# Local secrets for wrangler dev; not committed. Delete this file to get a new password.\nADMIN_PASSWORD=${password}\n`,
    { mode: 0o600 },
  );
  return { created: true, password };
}
