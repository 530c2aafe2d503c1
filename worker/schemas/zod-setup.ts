/**
 * zod without its eval probe. On first parse zod tries `new Function("")` to see whether it may
 * compile fast parsers; under the SPA's Content-Security-Policy (no 'unsafe-eval') the browser
 * reports that attempt as a violation on every load, even though zod catches it. Jitless, it never
 * tries (Workers forbid eval too, so the Worker loses nothing). Imported for its effect by the pages
 * that parse with zod.
 */
import { config } from 'zod';

config({ jitless: true });
