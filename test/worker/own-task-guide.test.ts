/**
 * The own-task guide's worked example (docs/your-own-task.md), taken as a researcher would take
 * it: its definition, read from the page as written, goes through the dashboard's check with a
 * made-up file of the public dataset's shape (569 rows without a header, 212 malignant and 357
 * benign; nothing of the real file is here), the changes the check proposes are applied with no
 * other edit, and the dataset is added. The figures the guide quotes are the ones the check gives.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import guide from '../../docs/your-own-task.md?raw';
import { seededRandom } from '../../worker/ml/random';
import { applyDefinitionChanges, datasetPreviewSchema } from '../../worker/schemas/dataset-definition';
import { adminCookie, postJson } from '../helpers/api';
import { base64Of } from '../helpers/dataset-upload';

let cookie: string;
beforeAll(async () => {
  cookie = await adminCookie();
});

/** The guide's first JSON block: the definition as a researcher first writes it. */
function guideDefinition(): Record<string, unknown> {
  const block = /```json\n([\s\S]*?)```/.exec(guide.slice(guide.indexOf('#### Your own task: a worked example')));
  expect(block, 'the worked example has a JSON block').not.toBeNull();
  return JSON.parse(block![1]!) as Record<string, unknown>;
}

/** 569 rows of the file's shape: id, diagnosis, 30 measurements; malignant masses are larger and less regular. */
function wdbcShaped(): string {
  const random = seededRandom(17);
  const labels = [...Array<string>(212).fill('M'), ...Array<string>(357).fill('B')];
  for (let i = labels.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [labels[i], labels[j]] = [labels[j]!, labels[i]!];
  }
  return labels
    .map((diagnosis, row) => {
      const shift = diagnosis === 'M' ? 1 : 0;
      const measurements = Array.from({ length: 30 }, (_, m) => ((10 + m) * (1 + 0.35 * shift * (m % 3 === 0 ? 1 : 0.3)) * (0.75 + 0.5 * random())).toFixed(5));
      return [String(842302 + row * 7), diagnosis, ...measurements].join(',');
    })
    .join('\n');
}

const preview = (definition: unknown, csv: string) => postJson('/api/admin/datasets/preview', { definition, csv_base64: base64Of(csv) }, { Cookie: cookie });

describe("the own-task guide's worked example", () => {
  it('is checked as written, fits with the changes the dashboard proposes and nothing else, and is added with the figures the guide quotes', async () => {
    const definition = guideDefinition();
    const csv = wdbcShaped();
    const res = await preview(definition, csv);
    expect(res.status, await res.clone().text()).toBe(200);
    const p = datasetPreviewSchema.parse(await res.json());
    expect(p.rows).toEqual({ read: 569, kept: 569 });
    expect(p.pools.short).toEqual([
      { outcome: 'positive', value: 'M', held_out: 42, needed: 201 },
      { outcome: 'negative', value: 'B', held_out: 72, needed: 201 },
    ]);
    expect(p.pools.proposal).toMatchObject({ main_pools: 1, test_size: 0.6, held_out: { positive: 127, negative: 215 }, training_rows: 227 });
    expect(p.pools.options[1]).toMatchObject({ main_pools: 2, test_size: 0.71, training_rows: 165 });
    expect(p.changes.map((c) => c.reason)).toEqual(['sha256', 'main_pools', 'test_share', 'understanding_sample']);
    // The guide says what the check says.
    for (const quoted of ['need 201 of each outcome', 'holds 42 malignant and 72 benign', 'share of 0.6 (127 malignant and 215 benign', '227 rows left to train', 'share of 0.71 and leave 165', '252 cases (2 + 200 + 50)']) {
      expect(guide.replace(/\s+/g, ' ')).toContain(quoted);
    }

    const applied = applyDefinitionChanges(definition, p.changes);
    const again = datasetPreviewSchema.parse(await (await preview(applied, csv)).json());
    expect(again.pools.can_build).toBe(true);
    expect(again.changes).toEqual([]);
    const added = await postJson('/api/admin/datasets', { definition: applied, csv_base64: base64Of(csv) }, { Cookie: cookie });
    expect(added.status, await added.clone().text()).toBe(201);
    expect(await added.json()).toMatchObject({ dataset: 'breast_mass', cases: 252, rows: 569 });
  });
});
