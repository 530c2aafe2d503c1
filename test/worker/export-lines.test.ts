/**
 * Issue #45, item 3: the pre-experiment table, the bulk of every export, is written as lines
 * SQLite makes (`lines` in worker/services/exports/tables.ts). Each line must be the very text
 * papaparse makes of the row (`pageText`), whatever a participant typed: formula starts, quotes,
 * line breaks, delimiters, byte-order marks, spaces at either end, other scripts.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../worker/db/client';
import { preExperimentTable, type ExportFilter } from '../../worker/services/exports/tables';
import { pageText, textPages, type TextFormat } from '../../worker/services/exports/writer';
import { adminCookie, api } from '../helpers/api';
import { seedCompasStudy } from '../helpers/study-factories';

/** Reasons as a participant may type them, each a case of the quoting rules. */
const REASONS = [
  '=SUM(A1:A9)',
  '+81 3 1234',
  '-ish',
  '@mention',
  '\tindented',
  '\rcarriage',
  'a, b and c',
  'tab\there',
  'said "maybe"',
  ' leading space',
  'trailing space ',
  'two\nlines',
  'windows\r\nlines',
  '\uFEFFmark',
  '年齢が高い、前科あり',
  "'already quoted'",
  '😀 ',
  '"',
  ' ',
  'plain reason',
  null,
];

let names: string[] = [];
beforeAll(async () => {
  await seedCompasStudy();
  const cookie = await adminCookie();
  names = [`test_${crypto.randomUUID().slice(0, 8)}`, `test_${crypto.randomUUID().slice(0, 8)}`];
  for (const name of names) {
    const res = await api(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas`, { method: 'POST', headers: { Cookie: cookie } });
    expect(res.status).toBe(200);
  }
  const answers = (await env.DB.prepare('select id from pre_experiment_responses order by id').all<{ id: number }>()).results;
  expect(answers.length).toBeGreaterThanOrEqual(400);
  await env.DB.batch(answers.map((a, i) => env.DB.prepare('update pre_experiment_responses set reasoning = ? where id = ?').bind(REASONS[i % REASONS.length], a.id)));
  // A session's configuration version is text too: one that starts like a formula.
  await env.DB.prepare("update sessions set study_config_version = '-2' where session_id = (select session_id from pre_experiment_responses order by id limit 1)").run();
});

async function bothWays(format: TextFormat, filter: ExportFilter) {
  const db = createDb(env.DB);
  let papa = '';
  for await (const rows of preExperimentTable.pages(db, filter)) papa += pageText(preExperimentTable, rows, format);
  let lines = '';
  let rows = 0;
  const holds = new Set<string>();
  for await (const page of textPages(db, preExperimentTable, filter, format, { holds })) {
    lines += page.text;
    rows += page.rows;
  }
  return { papa, lines, rows, holds };
}

describe('the pre-experiment lines SQLite writes', () => {
  it.each(['csv', 'tsv', 'excel'] as const)('are the bytes papaparse writes of the same rows (%s)', async (format) => {
    const { papa, lines, holds } = await bothWays(format, {});
    expect(papa).toContain(format === 'tsv' ? `"'\tindented"` : `"'=SUM(A1:A9)"`);
    expect(papa).toContain('"two\nlines"');
    expect(lines.length).toBe(papa.length);
    expect(lines).toBe(papa);
    for (const name of names) expect(holds.has(name)).toBe(true);
  });

  it("are one participant's alone when the export is of one participant", async () => {
    const { papa, lines, rows, holds } = await bothWays('csv', { userName: names[1] });
    expect(rows).toBe(200);
    expect(lines).toBe(papa);
    expect([...holds]).toEqual([names[1]]);
  });
});
