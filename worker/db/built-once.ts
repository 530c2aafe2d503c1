import { fillPlaceholders, type Query } from 'drizzle-orm';
import type { Db } from './client';

/**
 * Statements of a hot path (saving an answer), built by drizzle once per isolate with named
 * placeholders (`sql.placeholder`) and bound per call: their SQL text never depends on the
 * request, and building it again for every answer cost more CPU than the rest of the route.
 */
export function builtOnce<Name extends string>(build: (db: Db) => Record<Name, { toSQL(): Query }>): (db: Db) => Record<Name, Query> {
  let built: Record<Name, Query> | undefined;
  return (db) => (built ??= Object.fromEntries(Object.entries<{ toSQL(): Query }>(build(db)).map(([name, query]) => [name, query.toSQL()])) as Record<Name, Query>);
}

/** Built statements bound to this call's values (each takes the placeholders it names), run as one D1 batch. */
export const batchBuilt = (db: Db, queries: readonly Query[], values: Record<string, unknown>) =>
  db.$client.batch(queries.map((query) => db.$client.prepare(query.sql).bind(...fillPlaceholders(query.params, values))));
