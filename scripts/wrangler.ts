/** `npm run wrangler -- <args>`: wrangler with metrics, banner and Cloudflare lookups off. */
import { spawnTool } from '../ml-assets/lib/wrangler';

const child = spawnTool('wrangler', process.argv.slice(2));
child.on('exit', (code) => process.exit(code ?? 1));
