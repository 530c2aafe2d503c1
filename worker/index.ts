import app from './app';
import { writeBackup } from './services/backup';

export default {
  fetch: app.fetch,
  // The daily Cron Trigger of a deployed copy (wrangler.toml): the backup export.
  scheduled(controller, env, ctx) {
    ctx.waitUntil(writeBackup(env, new Date(controller.scheduledTime)));
  },
} satisfies ExportedHandler<Env>;
