/**
 * A fingerprint of the whole database, to show that a refused call changed nothing: every table's
 * row count and largest rowid (a table without rowid: its full rows), and the full rows of the
 * tables updated in place.
 */
import { env } from 'cloudflare:workers';

/** Tables that record attempts by design (a refused admin login counts and is audited); all others must not change on a refusal. */
const ATTEMPT_LOGS = ['rate_limit_buckets', 'audit_log'];
/** Tables whose rows may change in place; their whole content goes into the fingerprint. */
const UPDATED_IN_PLACE = ['sessions', 'consent_records', 'user_models', 'dataset_assignments', 'participants', 'recruitment', 'ai_models', 'added_datasets'];

/** A function that takes the fingerprint now (the tables are listed once: no call creates or drops one). */
export async function fingerprinter(): Promise<() => Promise<string>> {
  const { results: tables } = await env.DB.prepare(
    "select name, wr from pragma_table_list where schema = 'main' and type = 'table' and name not like 'sqlite_%' and name not like '_cf_%' and name not like 'd1_%' order by name",
  ).all<{ name: string; wr: number }>();
  const statements = [
    ...tables
      .filter((t) => !ATTEMPT_LOGS.includes(t.name))
      .map((t) => env.DB.prepare(t.wr ? `select '${t.name}' as t, * from "${t.name}"` : `select '${t.name}' as t, count(*) as n, max(rowid) as m from "${t.name}"`)),
    ...UPDATED_IN_PLACE.filter((t) => tables.some((x) => x.name === t)).map((t) => env.DB.prepare(`select * from "${t}" order by rowid`)),
  ];
  return async () => JSON.stringify((await env.DB.batch(statements)).map((r) => r.results));
}
