/**
 * What the platform must never hand out: a secret in the built client, or a COMPAS defendant's
 * personal data anywhere it keeps or serves data (the running Worker's local D1 and R2 files, the
 * generated case pools and models it was seeded from, and the API's answers).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import Papa from 'papaparse';
import { describe, expect, inject, it } from 'vitest';
import { dataDir, generatedDir, projectRoot } from '../../ml-assets/lib/paths';
import { devVarsPath } from '../../scripts/lib/dev-secrets';
import { studyCodes } from '../../worker/study-codes';
import { E2E_ADMIN_PASSWORD } from './global-setup';
import { makeParticipant } from './participants';

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => statSync(f).isFile());
}

describe('the built client', () => {
  it('holds no secret: not the admin password, not the local secrets file, not the name of a secret', () => {
    const files = filesUnder(path.join(projectRoot, 'dist', 'client'));
    expect(files.length).toBeGreaterThan(5);
    const secrets = [E2E_ADMIN_PASSWORD, 'test-admin-password', 'ADMIN_PASSWORD'];
    if (existsSync(devVarsPath)) {
      const local = /^ADMIN_PASSWORD=(.*)$/m.exec(readFileSync(devVarsPath, 'utf8'))?.[1]?.trim();
      if (local) secrets.push(local);
    }
    for (const file of files) {
      const text = readFileSync(file, 'latin1');
      for (const secret of secrets) expect(text.includes(secret), `${path.relative(projectRoot, file)} contains ${secret.slice(0, 3)}…`).toBe(false);
    }
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
  });

  it('holds none of the codes that pay a participant or close a submission', () => {
    const codes = [studyCodes.completionCode, studyCodes.prolificReturnCode, studyCodes.prolificScreenOutCode].filter((c): c is string => c !== null);
    const files = filesUnder(path.join(projectRoot, 'dist', 'client'));
    const holding = files.filter((file) => codes.some((code) => readFileSync(file, 'latin1').includes(code)));
    expect(holding.map((f) => path.relative(projectRoot, f))).toEqual([]);
  });
});

describe("COMPAS defendants' personal data", () => {
  type Row = Record<string, string>;
  const raw = Papa.parse<Row>(readFileSync(path.join(dataDir(), 'compas', 'compas-scores-two-years.csv'), 'utf8'), { header: true, skipEmptyLines: true }).data;
  const names = new Set(raw.map((r) => r.name!.toLowerCase()).filter((n) => n.split(' ').length === 2));
  const caseNumbers = new Set(raw.flatMap((r) => [r.c_case_number, r.r_case_number, r.vr_case_number]).filter((c): c is string => Boolean(c && c.length >= 10)));

  /** Full names (as consecutive word pairs), case numbers and birth dates found in a text. */
  function personalDataIn(text: string): string[] {
    const found: string[] = [];
    const words = text.toLowerCase().match(/[a-z]+/g) ?? [];
    for (let i = 0; i + 1 < words.length; i++) {
      const pair = `${words[i]} ${words[i + 1]}`;
      if (names.has(pair)) found.push(`name ${pair}`);
    }
    for (const m of text.match(/\b\d{8,}[A-Z]{2}\d{1,2}[A-Z]?\b/g) ?? []) if (caseNumbers.has(m)) found.push(`case number ${m}`);
    // Birth dates of the data (1919–1996); no stored value of the platform is a date before 2000.
    for (const m of text.match(/\b19\d\d-[01]\d-[0-3]\d\b/g) ?? []) found.push(`date ${m}`);
    return found;
  }

  it('the source really holds such data (so the checks below can fail)', () => {
    expect(names.size).toBeGreaterThan(5000);
    expect(caseNumbers.size).toBeGreaterThan(5000);
    const sample = raw[0]!;
    expect(personalDataIn(`${sample.name} ${sample.c_case_number} ${sample.dob}`).length).toBe(3);
  });

  it('is nowhere in the local D1 and R2 files of the running Worker, nor in the generated case pools and models', () => {
    const files = [...filesUnder(inject('persistTo')), ...filesUnder(generatedDir())];
    expect(files.some((f) => f.endsWith('.sqlite'))).toBe(true);
    const leaks: string[] = [];
    for (const file of files) {
      // The live Worker's SQLite opens and drops its -shm/-wal files as it goes: one gone since the
      // listing holds nothing any more (what it held is in its database file, read here too).
      let text: string;
      try {
        text = readFileSync(file, 'latin1');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      const found = personalDataIn(text);
      if (found.length) leaks.push(`${file}: ${found.slice(0, 3).join(', ')}`);
    }
    expect(leaks).toEqual([]);
  });

  it('is absent from what the API serves about COMPAS cases', async () => {
    const p = await makeParticipant('compas');
    const res = await fetch(`${inject('baseUrl')}/api/experiments/case-sets/fixed?participant_id=${p.id}&num_cases=200&experiment_type=pre_experiment`, {
      headers: { 'CF-Connecting-IP': `198.18.0.1-${p.id}` },
    });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(personalDataIn(text)).toEqual([]);
    for (const key of ['"name"', '"first"', '"last"', '"dob"', '"c_case_number"', '"r_case_number"', 'compas_screening_date', 'decile_score']) expect(text).not.toContain(key);
  });
});
