import { drizzle } from 'drizzle-orm/d1';
import * as schema from './schema';

/** Typed D1 handle. D1 has no interactive transactions: use `db.batch([...])` for atomic writes. */
export const createDb = (d1: D1Database) => drizzle(d1, { schema });
export type Db = ReturnType<typeof createDb>;
