/**
 * Deletion on the administrator's behalf: a participant with everything of theirs, or the whole
 * study's participant data, in D1 and in R2. D1 rows go in one batch first (the data a study
 * reports on); the model files they named go next. A file left by an interrupted R2 call is
 * swept by the model-files cleanup, which lists the bucket rather than trusting the rows.
 */
import {
  allUserModelKeys,
  deleteAllParticipantData,
  deleteAllUserModelRows,
  deleteParticipantCascade,
  userModelKeysOf,
} from '../db/queries/admin';
import type { Db } from '../db/client';
import { r2Keys } from '../storage/r2';

/** R2 deletes at most 1,000 keys per call. */
const R2_DELETE_BATCH = 1000;

async function deleteKeys(bucket: R2Bucket, keys: string[]) {
  for (let i = 0; i < keys.length; i += R2_DELETE_BATCH) await bucket.delete(keys.slice(i, i + R2_DELETE_BATCH));
  return keys.length;
}

async function listAll(bucket: R2Bucket, prefix: string) {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, cursor });
    keys.push(...page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return keys;
}

export async function deleteParticipant(db: Db, models: R2Bucket, participantId: number) {
  const keys = await userModelKeysOf(db, participantId);
  const { username, counts } = await deleteParticipantCascade(db, participantId);
  const files = await deleteKeys(models, keys);
  return { username, deleted: counts, deletedModelFiles: files };
}

export async function deleteAllStudyData(db: Db, models: R2Bucket) {
  const records = await deleteAllParticipantData(db);
  const files = await deleteKeys(models, await listAll(models, r2Keys.userModelsPrefix));
  return { records, files };
}

/** Every participant's model file and row; participants retrain from their stored answers. */
export async function deleteUserModelFiles(db: Db, models: R2Bucket) {
  const named = await allUserModelKeys(db);
  const listed = await listAll(models, r2Keys.userModelsPrefix);
  const files = await deleteKeys(models, [...new Set([...named, ...listed])]);
  const rows = await deleteAllUserModelRows(db);
  return { files, rows };
}
