import { drizzle } from 'drizzle-orm/d1';

/**
 * Typed D1 handle. D1 has no interactive transactions: use `db.batch([...])` for atomic writes.
 * Queries are built from the tables in schema.ts; the relational query API (`db.query`) is not
 * used, so the schema is not passed: drizzle would otherwise map every table's relations again
 * for each request's handle.
 */
export const createDb = (d1: D1Database) => drizzle(d1);
export type Db = ReturnType<typeof createDb>;
