/**
 * A test file's Worker running a between-subject design of its own: the study configuration's
 * conditions (the module is the isolate's own) replaced before the file's tests and restored after.
 */
import { afterAll, beforeAll } from 'vitest';
import { studyConfig, type Condition } from '../../worker/schemas/study';

/** The conditions the study ships with, as this isolate loaded them. */
export const shippedConditions: readonly Condition[] = [...studyConfig.conditions];

/** Makes `conditions` the study's for now (a test that changes them puts the file's back itself). */
export const useConditions = (conditions: readonly Condition[]) => studyConfig.conditions.splice(0, studyConfig.conditions.length, ...conditions);

/** The file's tests run `conditions`; the shipped ones come back after them. */
export function runWithConditions(conditions: readonly Condition[]) {
  beforeAll(() => {
    useConditions(conditions);
  });
  afterAll(() => {
    useConditions(shippedConditions);
  });
}
