/**
 * Every refusal a researcher's file can get on the dashboard's Datasets tab and on the model-
 * verification page's upload has a text in both interface languages, read from the code the
 * server sends (the server's detail is shown beside it as sent). The codes are read from the
 * services' sources, so a new refusal without its words fails here.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../ml-assets/lib/paths';
import adminEn from '../../web/features/admin/i18n/en.json';
import adminJa from '../../web/features/admin/i18n/ja.json';
import verifyEn from '../../web/features/model-verification/i18n/en.json';
import verifyJa from '../../web/features/model-verification/i18n/ja.json';

/** The codes of `badRequest('…')`, `conflict('…')`, `invalid('…')` and `new AppError(n, '…')` in a source file. */
function codesIn(...files: string[]): string[] {
  const codes = new Set<string>();
  for (const file of files) {
    const text = readFileSync(path.join(projectRoot, file), 'utf8');
    for (const m of text.matchAll(/(?:badRequest|conflict|invalid)\(\s*'([a-z0-9_]+)'|new AppError\(\s*\d+,\s*'([a-z0-9_]+)'/g)) codes.add((m[1] ?? m[2])!);
  }
  return [...codes].sort();
}
/** What the shared middleware refuses any body with. */
const COMMON = ['payload_too_large', 'validation_failed'];

describe('refusals in the interface language', () => {
  it('the Datasets tab has words for every refusal of the check and the add, in ja and en', () => {
    const codes = [...codesIn('worker/services/dataset-preview.ts', 'worker/services/dataset-addition.ts'), ...COMMON];
    expect(codes).toContain('pools_smaller_than_study');
    for (const texts of [adminEn, adminJa]) {
      const refusals = texts.dashboard.datasets.refusals as Record<string, string>;
      for (const code of codes) expect(refusals[code], code).toBeTruthy();
    }
    expect(Object.keys(adminJa.dashboard.datasets.refusals).sort()).toEqual(Object.keys(adminEn.dashboard.datasets.refusals).sort());
  });

  it("the model upload has words for every refusal of its check, in ja and en", () => {
    const codes = [...codesIn('worker/services/ai-upload.ts'), ...COMMON];
    expect(codes).toContain('invalid_model');
    for (const texts of [verifyEn, verifyJa]) {
      const refusals = texts.upload.refusals as Record<string, string>;
      for (const code of codes) expect(refusals[code], code).toBeTruthy();
    }
  });
});
