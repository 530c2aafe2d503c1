import { env } from 'cloudflare:workers';
import { strFromU8, unzipSync } from 'fflate';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { studyConfigResponseSchema } from '../../worker/schemas/admin';
import { studyConfig, studyConfigSchema } from '../../worker/schemas/study';
import { canonicalJson, configVersionOf } from '../../worker/services/study-configuration';
import { studyCodes, studyCodesSchema } from '../../worker/study-codes';
import { adminCookie, api } from '../helpers/api';
import { consentedParticipant, seedCompasCases } from '../helpers/study-factories';

let cookie: string;
beforeAll(async () => {
  await seedCompasCases();
  cookie = await adminCookie();
});

describe('study configuration', () => {
  it('has a version that changes with any setting, whatever the key order', async () => {
    const version = await configVersionOf(studyConfig);
    expect(version).toMatch(new RegExp(`^${studyConfig.studyVersion.replace(/\./g, '\\.')}\\+[0-9a-f]{12}$`));
    const reordered = Object.fromEntries(Object.entries(studyConfig).reverse()) as typeof studyConfig;
    expect(await configVersionOf(reordered)).toBe(version);
    expect(canonicalJson(reordered)).toBe(canonicalJson(studyConfig));
    expect(await configVersionOf({ ...studyConfig, totalMinutes: studyConfig.totalMinutes + 1 })).not.toBe(version);
    expect(await configVersionOf({ ...studyConfig, mainExperiment: { ...studyConfig.mainExperiment, alphaLevels: [0, 0.5, 1, 0.25, 0.75] } })).not.toBe(version);
  });

  it('refuses an inconsistent edit at start-up', () => {
    expect(studyCodesSchema.safeParse({ ...studyCodes, prolificScreenOutCode: null }).success).toBe(false);
    expect(studyCodesSchema.safeParse(studyCodes).success).toBe(true);
    expect(studyConfigSchema.safeParse({ ...studyConfig, prolific: { ...studyConfig.prolific, completionUrl: 'http://example.org/?cc={code}' } }).success).toBe(false);
    expect(studyConfigSchema.safeParse({ ...studyConfig, prolific: { ...studyConfig.prolific, completionUrl: 'https://example.org/done' } }).success).toBe(false);
    expect(studyConfigSchema.safeParse(studyConfig).success).toBe(true);
  });

  it('is recorded with each session, shown read-only on the dashboard with its sessions, and in every exported row', async () => {
    const p = await consentedParticipant();
    const version = await configVersionOf(studyConfig);
    const [session] = (await env.DB.prepare('select study_config_version from sessions where session_id = ?').bind(p.id).all<{ study_config_version: string }>()).results;
    expect(session!.study_config_version).toBe(version);

    const res = await api('/api/admin/study-config', { headers: { Cookie: cookie } });
    expect(res.status).toBe(200);
    const body = studyConfigResponseSchema.parse(await res.json());
    expect(body.version).toBe(version);
    expect(body.config).toEqual(JSON.parse(JSON.stringify(studyConfig)));
    const recorded = body.recorded.find((r) => r.version === version)!;
    const { results } = await env.DB.prepare('select count(*) as n from sessions where study_config_version = ?').bind(version).all<{ n: number }>();
    expect(recorded).toMatchObject({ current: true, sessions: results[0]!.n });
    expect((await api('/api/admin/study-config')).status).toBe(401);

    const zip = await api(`/api/enhanced-export/all-data?format=csv&user_name=${p.id}`, { headers: { Cookie: cookie } });
    const files = unzipSync(new Uint8Array(await zip.arrayBuffer()));
    const participants = Papa.parse<Record<string, string>>(strFromU8(files['participants.csv']!), { header: true, skipEmptyLines: true }).data;
    expect(participants.map((r) => r.study_config_version)).toEqual([version]);
    const configurations = JSON.parse(strFromU8(files['study-configurations.json']!)) as { version: string; config: unknown }[];
    expect(configurations.find((c) => c.version === version)?.config).toEqual(JSON.parse(JSON.stringify(studyConfig)));
    const codebook = Papa.parse<Record<string, string>>(strFromU8(files['codebook.csv']!), { header: true, skipEmptyLines: true }).data;
    for (const table of ['participants', 'pre-experiment', 'main-experiment']) {
      expect(codebook.some((r) => r.table === table && r.column === 'study_config_version'), table).toBe(true);
    }
  });
});
