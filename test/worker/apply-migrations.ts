import { applyD1Migrations, env } from 'cloudflare:test';

// Setup files run outside per-file storage isolation and may run more than once;
// applyD1Migrations skips migrations already applied.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
