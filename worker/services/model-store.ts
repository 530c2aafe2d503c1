/**
 * Loads serialized models from R2, validates them with the format's zod schema, compiles them to
 * typed arrays, and caches the compiled form per isolate. AI model keys carry a content hash and
 * never change, so they are cached by key; user models are rewritten on retraining, so they are
 * cached by key and the identifier of the training that wrote them.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { aiModels, sessions } from '../db/schema';
import { compileModel, compiledBytes, type CompiledModel } from '../ml/model';
import { shapPlanBytes } from '../ml/treeshap';
import type { DatasetType } from '../schemas/study';
import { shortSha256Hex } from '../digest';

/**
 * Compiled models kept per isolate, bounded by the memory they take with their TreeSHAP plans
 * (built on caching): about 0.2 MB for a user model and under 2 MB for an AI model, so some 240
 * participants' models fit, well inside a Worker's 128 MB. A bound by count (64) had a hundred
 * participants in the main experiment reload and re-parse their model from R2 on every
 * explanation, garbage that the isolate's full collections then had to clear.
 */
const MAX_CACHED_BYTES = 48 * 2 ** 20;
let maxCachedBytes = MAX_CACHED_BYTES;
type Cached = { model: Promise<CompiledModel>; bytes: number };
const cache = new Map<string, Cached>();
let cachedBytes = 0;

/** A stored AI model version is named by its content: the first 12 hex digits of its SHA-256. */
export const aiModelIdentifier = async (dataset: DatasetType, json: string) => `ai_${dataset}_${await shortSha256Hex(json)}`;

export class ModelFileError extends Error {
  override readonly name = 'ModelFileError';
}

function forget(cacheKey: string, entry: Cached) {
  if (cache.get(cacheKey) !== entry) return;
  cache.delete(cacheKey);
  cachedBytes -= entry.bytes;
}

/** A cached model, now the most recently used. */
function recall(cacheKey: string): Promise<CompiledModel> | undefined {
  const hit = cache.get(cacheKey);
  if (!hit) return undefined;
  // Map iteration order is insertion order.
  cache.delete(cacheKey);
  cache.set(cacheKey, hit);
  return hit.model;
}

function remember(cacheKey: string, load: () => Promise<CompiledModel>): Promise<CompiledModel> {
  const hit = recall(cacheKey);
  if (hit) return hit;
  const entry: Cached = { model: load(), bytes: 0 };
  cache.set(cacheKey, entry);
  entry.model.then(
    (model) => {
      if (cache.get(cacheKey) !== entry) return;
      entry.bytes = compiledBytes(model) + shapPlanBytes(model);
      cachedBytes += entry.bytes;
      // Least recently used first; the newest stays even when it alone is over the bound.
      for (const [key, oldest] of cache) {
        if (cachedBytes <= maxCachedBytes || oldest === entry) break;
        forget(key, oldest);
      }
    },
    () => forget(cacheKey, entry),
  );
  return entry.model;
}

async function readCompiled(object: R2ObjectBody, key: string): Promise<CompiledModel> {
  let json: unknown;
  try {
    json = await object.json();
  } catch {
    throw new ModelFileError(`model file ${key} is not JSON`);
  }
  try {
    return compileModel(json);
  } catch (err) {
    throw new ModelFileError(`model file ${key} is not a valid xdl-gbdt model: ${err instanceof Error ? err.message.slice(0, 300) : String(err)}`);
  }
}

/** A model whose key never changes content (AI models). Null when the object is missing. */
export async function loadImmutableModel(bucket: R2Bucket, key: string): Promise<CompiledModel | null> {
  if (!cache.has(key) && !(await bucket.head(key))) return null;
  return remember(key, async () => {
    const object = await bucket.get(key);
    if (!object) throw new ModelFileError(`model file ${key} disappeared`);
    return readCompiled(object, key);
  });
}

/** The R2 custom metadata a user model file names its training by (its D1 row's identifier). */
export const USER_MODEL_IDENTIFIER_METADATA = 'model_identifier';

/**
 * A participant's own model, which retraining rewrites under the same key. Each training has its
 * own identifier, written to the D1 row and to the file's metadata, so the model is cached under
 * the identifier the caller read from D1 and a cached one costs no R2 call at all. A file whose
 * metadata names another training (being replaced this moment, or written before identifiers were
 * recorded) is used for this call and not cached. Null when the file is missing.
 */
export async function loadUserModel(bucket: R2Bucket, key: string, identifier: string): Promise<CompiledModel | null> {
  const cacheKey = `${key}#${identifier}`;
  const hit = recall(cacheKey);
  if (hit) return hit;
  const object = await bucket.get(key);
  if (!object) return null;
  const model = readCompiled(object, key);
  return object.customMetadata?.[USER_MODEL_IDENTIFIER_METADATA] === identifier ? remember(cacheKey, () => model) : model;
}

type AiModelRow = { identifier: string; r2Key: string; metrics: Record<string, unknown> };

/** The compiled AI model of a registered row, with its identifier and test accuracy; null when there is none. */
export async function loadAiRow(bucket: R2Bucket, row: AiModelRow | null | undefined) {
  if (!row) return null;
  const model = await loadImmutableModel(bucket, row.r2Key);
  const accuracy = row.metrics.test_accuracy;
  return model ? { identifier: row.identifier, model, testAccuracy: typeof accuracy === 'number' ? accuracy : null } : null;
}

export const aiRowColumns = { identifier: aiModels.modelIdentifier, r2Key: aiModels.r2Key, metrics: aiModels.metrics };

/** The active AI model of a dataset with its identifier, or null when none is registered. */
export async function loadActiveAiModel(db: Db, bucket: R2Bucket, dataset: DatasetType) {
  const row = await db
    .select(aiRowColumns)
    .from(aiModels)
    .where(and(eq(aiModels.datasetType, dataset), eq(aiModels.status, 'active')))
    .get();
  return loadAiRow(bucket, row);
}

/** The AI model pinned to a session (`pinActiveAiModel`), or null when none is pinned or its file is missing. */
export async function loadPinnedAiModel(db: Db, bucket: R2Bucket, sessionId: string) {
  const row = await db
    .select(aiRowColumns)
    .from(sessions)
    .innerJoin(aiModels, eq(aiModels.modelIdentifier, sessions.aiModelIdentifier))
    .where(eq(sessions.sessionId, sessionId))
    .get();
  return loadAiRow(bucket, row);
}

/** Fixes the dataset's active AI model for a session that has none yet (main start, first explanation). */
export async function pinActiveAiModel(db: Db, sessionId: string, dataset: DatasetType) {
  const active = db
    .select({ identifier: aiModels.modelIdentifier })
    .from(aiModels)
    .where(and(eq(aiModels.datasetType, dataset), eq(aiModels.status, 'active')))
    .limit(1);
  await db
    .update(sessions)
    .set({ aiModelIdentifier: sql`(${active})` })
    .where(and(eq(sessions.sessionId, sessionId), isNull(sessions.aiModelIdentifier)));
}

/** For tests: forget every cached model, and bound the cache by `bytes` from now on (48 MiB when left out). */
export const clearModelCache = (bytes = MAX_CACHED_BYTES) => {
  cache.clear();
  cachedBytes = 0;
  maxCachedBytes = bytes;
};
