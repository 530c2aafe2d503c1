import app from './app';
import { startBackup } from './services/backup';
import { hashedAsset } from './static-assets';

export default {
  fetch(request, env, ctx) {
    // wrangler.toml runs the Worker first for /api/* (the API) and /assets/* (hashed build files).
    if (new URL(request.url).pathname.startsWith('/assets/')) return hashedAsset(request, env);
    return app.fetch(request, env, ctx);
  },
  // The daily Cron Trigger of a deployed copy (wrangler.toml): the backup export.
  scheduled(controller, env, ctx) {
    ctx.waitUntil(startBackup(env, new Date(controller.scheduledTime)));
  },
} satisfies ExportedHandler<Env>;

// The Workflow that writes all-data exports and backups in steps (wrangler.toml [[workflows]]).
export { ExportWorkflow } from './workflows/export-workflow';
