import { bodyLimit } from 'hono/body-limit';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env';
import { AppError } from '../errors';

/** No participant or admin payload comes near this; larger bodies are refused before parsing. */
export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * A researcher's uploaded model (a LightGBM dump of a few hundred trees runs to several MB). The
 * route is behind the admin guard, which runs first, so only a signed-in administrator gets here.
 */
export const MAX_MODEL_UPLOAD_BYTES = 16 * 1024 * 1024;
const MODEL_UPLOAD_PATH = '/api/model-verification/ai-model/upload';
/** A new dataset's definition and CSV (base64), checked or added; also behind the admin guard. */
export const MAX_DATASET_PREVIEW_BYTES = 9 * 1024 * 1024;
const DATASET_UPLOAD_PATHS = new Set(['/api/admin/datasets/preview', '/api/admin/datasets']);

const limitOf = (maxSize: number) =>
  bodyLimit({
    maxSize,
    onError: () => {
      throw new AppError(413, 'payload_too_large', `Request body exceeds ${maxSize} bytes`);
    },
  });
const limitSmall = limitOf(MAX_BODY_BYTES);
const limitUpload = limitOf(MAX_MODEL_UPLOAD_BYTES);
const limitPreview = limitOf(MAX_DATASET_PREVIEW_BYTES);

export const limitBody = createMiddleware<AppEnv>((c, next) => {
  const path = c.req.path.replace(/\/+$/, '');
  return (path === MODEL_UPLOAD_PATH ? limitUpload : DATASET_UPLOAD_PATHS.has(path) ? limitPreview : limitSmall)(c, next);
});

/**
 * Every route answers a malformed JSON body with 400, including routes that take no body, so a
 * client bug never passes silently. Hono caches the text, so validators do not read it twice.
 */
export const rejectMalformedJson = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && /\bjson\b/i.test(c.req.header('Content-Type') ?? '')) {
    const text = await c.req.text();
    if (text.trim() !== '') {
      try {
        JSON.parse(text);
      } catch {
        throw new AppError(400, 'malformed_json', 'Malformed JSON in request body');
      }
    }
  }
  await next();
});
