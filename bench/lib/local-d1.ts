import { readdirSync } from 'node:fs';
import path from 'node:path';

/** The SQLite file of the local D1 database under a wrangler `--persist-to` directory. */
export function d1File(persistTo: string): string {
  const dir = path.join(persistTo, 'v3', 'd1', 'miniflare-D1DatabaseObject');
  const file = readdirSync(dir).find((f) => f.endsWith('.sqlite') && f !== 'metadata.sqlite');
  if (!file) throw new Error(`no D1 database under ${dir}`);
  return path.join(dir, file);
}
