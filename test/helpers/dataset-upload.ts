/** What the dashboard sends of a researcher's dataset (the CSV in base64, its sha256), and the D1 row count that shows whether anything was stored. */
import { env } from 'cloudflare:workers';

export const base64Of = (text: string) => {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
};

export const sha256Of = async (text: string) =>
  Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))), (b) => b.toString(16).padStart(2, '0')).join('');

/** Rows of every study table (the admin's own sessions and the audit log left out: signing in and refusals write those). */
export async function studyRowCount(): Promise<number> {
  const tables = (
    await env.DB.prepare(
      "select name from sqlite_master where type = 'table' and name not like 'sqlite%' and name not like '\\_%' escape '\\' and name != 'd1_migrations' and name != 'admin_sessions' and name != 'audit_log'",
    ).all<{ name: string }>()
  ).results;
  let n = 0;
  for (const t of tables) n += (await env.DB.prepare(`select count(*) as n from "${t.name}"`).first<{ n: number }>())!.n;
  return n;
}
