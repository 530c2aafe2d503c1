/**
 * The running study configuration's version: its `studyVersion` plus the first 12 hex digits of
 * the SHA-256 of its canonical JSON (keys sorted), so any edit of `study-config.ts`, even one that
 * forgets to bump `studyVersion`, yields a new version. Each new session records the version, and
 * the first session under a version stores the whole configuration beside it.
 */
import { shortSha256Hex } from '../digest';
import { enabledDatasets, studyConfig, type StudyConfig, type StudyConfigRecord } from '../schemas/study';

/** JSON with object keys sorted at every level, so equal configurations hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export async function configVersionOf(config: StudyConfig): Promise<string> {
  return `${config.studyVersion}+${await shortSha256Hex(canonicalJson(config))}`;
}

let current: { enabled: string; record: Promise<StudyConfigRecord> } | undefined;

/**
 * The configuration this Worker runs, with its version: the configuration as written, with the
 * datasets administrators enabled on the dashboard among its `enabledDatasets` (so enabling one
 * starts a new version). Computed once per isolate and again when that list changes.
 */
export function currentStudyConfig(): Promise<StudyConfigRecord> {
  const config: StudyConfig = { ...studyConfig, enabledDatasets: enabledDatasets() };
  const enabled = config.enabledDatasets.join(',');
  if (current?.enabled !== enabled) {
    current = { enabled, record: configVersionOf(config).then((version) => ({ version, studyVersion: config.studyVersion, config })) };
  }
  return current.record;
}
