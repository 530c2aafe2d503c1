/**
 * `npm start`: makes sure the local admin secret exists, builds the SPA, applies the local D1
 * migrations, prepares datasets, case pools and AI models (skipped when up to date), seeds them
 * into the local D1 and R2, then serves everything with `wrangler dev` on
 * 127.0.0.1:8787 using wrangler's embedded local D1 and R2.
 */
import { writeDatasetRegistry } from '../ml-assets/lib/definitions';
import { isSetUpError, prepareAll } from '../ml-assets/lib/prepare';
import { placeholderContacts } from '../worker/schemas/study-config';
import { seedLocal } from '../ml-assets/lib/seed';
import { ensureDevSecrets, devVarsPath } from './lib/dev-secrets';
import { applyLocalMigrations, buildSpa, spawnTool } from './lib/wrangler';

const PORT = Number(process.env.PORT ?? 8787);

const secrets = ensureDevSecrets();
if (secrets.created) {
  console.log(`\nCreated ${devVarsPath} with a new admin password (shown only this once):\n\n  ${secrets.password}\n`);
} else {
  console.log(`Admin password: see ADMIN_PASSWORD in ${devVarsPath}`);
}

// The Worker and the web app are built with every dataset definition of ml-assets/datasets/.
let definitions;
try {
  definitions = writeDatasetRegistry();
} catch (err) {
  if (!isSetUpError(err)) throw err;
  console.error(`\nSet-up stopped: ${err.message}`);
  process.exit(2);
}
console.log('Building the web app…');
await buildSpa();
console.log('Applying local D1 migrations…');
await applyLocalMigrations();
console.log('Preparing datasets, case pools and AI models…');
try {
  prepareAll({ log: (line) => console.log(`  ${line}`), definitions });
} catch (err) {
  // A definition or source problem says what to fix; nothing is served from a half-built set-up.
  if (!isSetUpError(err)) throw err;
  console.error(`\nSet-up stopped: ${err.message}`);
  process.exit(2);
}
console.log('Seeding cases and AI models into the local D1 and R2…');
await seedLocal();

const placeholders = placeholderContacts();
if (placeholders.length > 0) {
  const rule = '!'.repeat(78);
  console.warn(
    [
      '',
      rule,
      '!! The study still shows the shipped placeholder contacts to participants:',
      ...placeholders.map((c) => `!!   ${c.role}: ${c.name} <${c.email}>`),
      '!! Put your own in `contacts` of worker/schemas/study-config.ts before you recruit anyone.',
      rule,
      '',
    ].join('\n'),
  );
}

console.log(`\nXAI Decision Lab: http://127.0.0.1:${PORT}/  (status: http://127.0.0.1:${PORT}/status)\n`);
const dev = spawnTool('wrangler', ['dev', '--ip', '127.0.0.1', '--port', String(PORT), '--local']);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => dev.kill(signal));
dev.on('exit', (code) => process.exit(code ?? 0));
