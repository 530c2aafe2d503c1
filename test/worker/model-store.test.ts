import { env } from 'cloudflare:workers';
import { beforeEach, describe, expect, it } from 'vitest';
import { createDb } from '../../worker/db/client';
import { aiModels } from '../../worker/db/schema';
import { compileModel, compiledBytes } from '../../worker/ml/model';
import { trainGbdt } from '../../worker/ml/train';
import { shapPlanBytes } from '../../worker/ml/treeshap';
import { clearModelCache, loadActiveAiModel, loadImmutableModel, loadUserModel, ModelFileError, USER_MODEL_IDENTIFIER_METADATA } from '../../worker/services/model-store';
import { r2Keys } from '../../worker/storage/r2';
import { syntheticParticipantData } from '../helpers/factories';

const smallModel = (seed: number) =>
  JSON.stringify(trainGbdt(syntheticParticipantData(120, seed), { numTrees: 5, numLeaves: 4, minDataInLeaf: 5 }));

beforeEach(() => clearModelCache());

describe('model store', () => {
  it('loads, validates and caches an immutable model by key', async () => {
    const key = r2Keys.aiModel('compas', `ai_compas_${crypto.randomUUID()}`);
    await env.MODELS.put(key, smallModel(1));
    const first = await loadImmutableModel(env.MODELS, key);
    expect(first?.trees).toHaveLength(5);
    await env.MODELS.delete(key);
    // Immutable keys are served from the isolate cache once loaded.
    expect(await loadImmutableModel(env.MODELS, key)).toBe(first);
  });

  it('returns null for a missing model', async () => {
    expect(await loadImmutableModel(env.MODELS, 'ai-models/compas/none.json')).toBeNull();
    expect(await loadUserModel(env.MODELS, 'user-models/compas/none.json', 'user_none_1')).toBeNull();
  });

  it('caches a user model by the training that wrote it, with no R2 call once cached', async () => {
    const key = r2Keys.userModel('adult_income', `S${crypto.randomUUID().slice(0, 7)}`);
    const write = (seed: number, identifier: string) => env.MODELS.put(key, smallModel(seed), { customMetadata: { [USER_MODEL_IDENTIFIER_METADATA]: identifier } });
    await write(2, 'user_a_1');
    const first = await loadUserModel(env.MODELS, key, 'user_a_1');
    await env.MODELS.delete(key);
    expect(await loadUserModel(env.MODELS, key, 'user_a_1')).toBe(first);
    // Retrained: a new identifier in D1 and in the file.
    await write(3, 'user_a_2');
    const second = await loadUserModel(env.MODELS, key, 'user_a_2');
    expect(second?.leaves.value).not.toEqual(first?.leaves.value);
    expect(await loadUserModel(env.MODELS, key, 'user_a_2')).toBe(second);
  });

  it('uses a user model file that names another training once, without caching it', async () => {
    const key = r2Keys.userModel('compas', `S${crypto.randomUUID().slice(0, 7)}`);
    // Rewritten by a newer training than the row the caller read (or written before identifiers were recorded).
    await env.MODELS.put(key, smallModel(4), { customMetadata: { [USER_MODEL_IDENTIFIER_METADATA]: 'user_b_2' } });
    const used = await loadUserModel(env.MODELS, key, 'user_b_1');
    expect(used?.trees).toHaveLength(5);
    await env.MODELS.delete(key);
    expect(await loadUserModel(env.MODELS, key, 'user_b_1')).toBeNull();
  });

  it('keeps the compiled trees only, not the parsed file', async () => {
    const key = r2Keys.aiModel('compas', `ai_compas_${crypto.randomUUID()}`);
    await env.MODELS.put(key, smallModel(5));
    const model = await loadImmutableModel(env.MODELS, key);
    expect(model?.header.feature_names).toHaveLength(5);
    expect(model?.header).not.toHaveProperty('trees');
  });

  it('bounds the cache by the memory of models and their TreeSHAP plans, least recently used out first', async () => {
    // Room for two of these models, not three.
    const sized = compileModel(JSON.parse(smallModel(6)));
    clearModelCache(2.5 * (compiledBytes(sized) + shapPlanBytes(sized)));
    const keys = await Promise.all(
      [6, 7, 8].map(async (seed) => {
        const key = r2Keys.aiModel('compas', `ai_compas_${crypto.randomUUID()}`);
        await env.MODELS.put(key, smallModel(seed));
        return key;
      }),
    );
    const [a, b, c] = keys as [string, string, string];
    const first = await loadImmutableModel(env.MODELS, a);
    await loadImmutableModel(env.MODELS, b);
    // a is used again, so b is now the least recently used.
    expect(await loadImmutableModel(env.MODELS, a)).toBe(first);
    await loadImmutableModel(env.MODELS, c);
    await Promise.all(keys.map((key) => env.MODELS.delete(key)));
    // With its file gone, a model is only found while it is cached.
    expect(await loadImmutableModel(env.MODELS, a)).toBe(first);
    expect(await loadImmutableModel(env.MODELS, c)).not.toBeNull();
    expect(await loadImmutableModel(env.MODELS, b)).toBeNull();
  });

  it('rejects a file that is not a valid model', async () => {
    const key = r2Keys.aiModel('compas', `ai_compas_${crypto.randomUUID()}`);
    await env.MODELS.put(key, JSON.stringify({ format: 'xdl-gbdt', version: 1, trees: [] }));
    await expect(loadImmutableModel(env.MODELS, key)).rejects.toBeInstanceOf(ModelFileError);
    await env.MODELS.put(`${key}.txt`, 'not json');
    await expect(loadImmutableModel(env.MODELS, `${key}.txt`)).rejects.toThrow(/not JSON/);
  });

  it('finds the active AI model of a dataset through D1', async () => {
    const db = createDb(env.DB);
    const identifier = `ai_speed_dating_${crypto.randomUUID().slice(0, 8)}`;
    const key = r2Keys.aiModel('speed_dating', identifier);
    await env.MODELS.put(key, smallModel(4));
    await db.insert(aiModels).values({
      datasetType: 'speed_dating',
      modelIdentifier: identifier,
      status: 'active',
      r2Key: key,
      formatVersion: 1,
      fileSizeBytes: 1,
      metrics: {},
      datasetInfo: {},
      params: {},
      trainingTimeSeconds: 0.1,
      trainedAt: new Date().toISOString(),
    });
    const active = await loadActiveAiModel(db, env.MODELS, 'speed_dating');
    expect(active?.identifier).toBe(identifier);
    expect(active?.model.numFeatures).toBe(5);
    expect(await loadActiveAiModel(db, env.MODELS, 'compas')).toBeNull();
  });
});
