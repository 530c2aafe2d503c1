import { describe, expect, it, vi } from 'vitest';
import { studyConfigSchema } from '../../worker/schemas/study';
import { studyConfig as configuredStudy, placeholderContacts } from '../../worker/schemas/study-config';
import { datasetFromCaseId, datasetFromFeatures, DatasetTypeError, resolveDatasetType } from '../../web/lib/dataset-type';
import { INVALID_SESSION_ID, installDebugHelpers } from '../../web/lib/debug-helpers';
import { generateParticipantId, ID_ALPHABET, isValidSessionId, normaliseParticipantId, participantIdCandidates, readStoredSessionId } from '../../web/lib/session-id';
import { storageKeys } from '../../web/lib/storage-keys';

describe('session IDs', () => {
  it.each([
    ['AB', true],
    ['AB12CD34', true],
    ['A', false],
    ['AB12CD345', false],
    ['ab12cd34', false],
    ['session_abc-12', true],
    ['session_a', false],
    [`session_${'x'.repeat(192)}`, true],
    [`session_${'x'.repeat(193)}`, false],
    [INVALID_SESSION_ID, false],
  ])('%s valid: %s', (id, valid) => {
    expect(isValidSessionId(id)).toBe(valid);
  });

  it('generates 8 uppercase letters or digits from an alphabet without look-alikes, without modulo bias', () => {
    const ids = Array.from({ length: 2000 }, () => generateParticipantId());
    for (const id of ids) {
      expect(id).toMatch(/^[A-Z0-9]{8}$/);
      expect(isValidSessionId(id)).toBe(true);
      expect(id).not.toMatch(/[OIL]/);
    }
    expect(new Set(ids).size).toBe(2000);
    // Every character of the alphabet turns up, and only those.
    expect(new Set(ids.join('')).size).toBe(ID_ALPHABET.length);
    expect(ID_ALPHABET).toHaveLength(33);
    // 231 = 7 × 33: bytes 231..255 are skipped, never folded onto the first characters.
    const skewed = generateParticipantId((b) => b.fill(0).fill(240, 0, 8));
    expect(skewed).toBe('00000000');
    expect(generateParticipantId((b) => b.fill(230))).toBe(ID_ALPHABET[230 % 33]!.repeat(8));
  });

  it('reads look-alike letters of a typed ID as the digits of the alphabet, then as typed', () => {
    expect(normaliseParticipantId(' ab-1o d3l! ')).toBe('AB1OD3L');
    expect(normaliseParticipantId('abcdefghijk')).toBe('ABCDEFGH');
    // A synthetic participant's name, as the dashboard resumes it, keeps its form.
    expect(normaliseParticipantId(' test_Rel-a_1 ')).toBe('test_Rel-a_1');
    expect(normaliseParticipantId('TEST_ab!c')).toBe('test_abc');
    expect(normaliseParticipantId('test')).toBe('TEST');
    expect(participantIdCandidates('7K3M9QXA')).toEqual(['7K3M9QXA']);
    expect(participantIdCandidates('O7KI3MLQ')).toEqual(['07K13M1Q', 'O7KI3MLQ']);
    for (const id of Array.from({ length: 200 }, () => generateParticipantId())) expect(participantIdCandidates(id)).toEqual([id]);
  });

  it('treats an invalid stored ID as absent and reports it', () => {
    const onInvalid = vi.fn();
    expect(readStoredSessionId(() => INVALID_SESSION_ID, 'k', onInvalid)).toBeNull();
    expect(onInvalid).toHaveBeenCalledWith(INVALID_SESSION_ID);
    expect(readStoredSessionId(() => 'AB12CD34', 'k', onInvalid)).toBe('AB12CD34');
  });
});

describe('dataset type resolution', () => {
  it('infers from case IDs', () => {
    expect(datasetFromCaseId('pre_compas_017')).toBe('compas');
    expect(datasetFromCaseId('tutorial_speed')).toBe('speed_dating');
    expect(datasetFromCaseId('tutorial_2')).toBe('adult_income');
    expect(datasetFromCaseId('main_case_007')).toBe('adult_income');
    expect(datasetFromCaseId('xyz')).toBeNull();
  });

  it('infers from feature fields: COMPAS needs 2, the others 3 and a majority', () => {
    expect(datasetFromFeatures({ priors_count: 1, juv_fel_count: 0 })).toBe('compas');
    expect(datasetFromFeatures({ priors_count: 1 })).toBeNull();
    expect(
      datasetFromFeatures(Object.fromEntries(['field_cd', 'income', 'career_c', 'pf_o_att', 'pf_o_sin', 'pf_o_int', 'pf_o_fun', 'attr_o'].map((k) => [k, 1]))),
    ).toBe('speed_dating');
    expect(datasetFromFeatures({ workclass: 'x', fnlwgt: 1, education: 'y' })).toBeNull();
  });

  it('prefers the stored value, then session ID, then case data, then the default', () => {
    expect(resolveDatasetType({ stored: 'compas', sessionId: 'session_speed_dating_x' })).toEqual({ datasetType: 'compas', source: 'stored' });
    expect(resolveDatasetType({ stored: 'bogus', sessionId: 'session_speed_dating_x' })).toEqual({ datasetType: 'speed_dating', source: 'session_id' });
    expect(resolveDatasetType({ caseData: { case_id: 'tutorial_compas' } })).toEqual({ datasetType: 'compas', source: 'case_data' });
    expect(resolveDatasetType({})).toEqual({ datasetType: 'adult_income', source: 'default' });
  });
});

describe('browser debug helpers', () => {
  it('forces and clears a dataset-type error', () => {
    const debug = installDebugHelpers(window);
    expect(window.xaiDebug).toBe(debug);
    debug.forceDatasetError();
    expect(() => resolveDatasetType({ stored: 'compas' })).toThrow(DatasetTypeError);
    debug.clearDatasetError();
    expect(resolveDatasetType({ stored: 'compas' }).datasetType).toBe('compas');
  });

  it('resets experiment keys but keeps the language and unrelated keys', () => {
    const debug = installDebugHelpers(window);
    localStorage.setItem(storageKeys.sessionId, 'AB12CD34');
    localStorage.setItem(`${storageKeys.preResponsesPrefix}AB12CD34`, '[]');
    localStorage.setItem(storageKeys.language, 'en');
    localStorage.setItem('unrelated', '1');
    expect(debug.resetLocalStorage().sort()).toEqual([`${storageKeys.preResponsesPrefix}AB12CD34`, storageKeys.sessionId].sort());
    expect(localStorage.getItem(storageKeys.language)).toBe('en');
    expect(localStorage.getItem('unrelated')).toBe('1');
  });

  it('plants a session ID that fails validation', () => {
    installDebugHelpers(window).setInvalidSession();
    expect(isValidSessionId(localStorage.getItem(storageKeys.sessionId)!)).toBe(false);
  });
});

describe('study configuration', () => {
  it('the shipped configuration passes its schema, and an inconsistent edit is refused', () => {
    expect(studyConfigSchema.safeParse(configuredStudy).success).toBe(true);
    expect(studyConfigSchema.safeParse({ ...configuredStudy, defaultDatasetType: 'compas', enabledDatasets: ['adult_income'] }).success).toBe(false);
    expect(studyConfigSchema.safeParse({ ...configuredStudy, contacts: [{ ...configuredStudy.contacts[0], email: 'not an address' }] }).success).toBe(false);
  });
});

describe('placeholder contacts', () => {
  it('lists the shipped contacts until a study puts in its own', () => {
    expect(placeholderContacts().map((c) => c.role)).toEqual(['responsible_researcher', 'implementer']);
    const own = { contacts: [{ role: 'responsible_researcher' as const, name: 'Dr. A', affiliation: 'Univ. B', email: 'a@b.example' }] };
    expect(placeholderContacts(own)).toEqual([]);
  });
});
