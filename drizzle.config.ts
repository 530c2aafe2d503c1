import { defineConfig } from 'drizzle-kit';

// Generates flat NNNN_name.sql files that `wrangler d1 migrations apply` runs; never `push`.
export default defineConfig({
  dialect: 'sqlite',
  schema: './worker/db/schema.ts',
  out: './migrations',
});
