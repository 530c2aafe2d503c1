import { describe, expect, it } from 'vitest';
import type { ParticipantCase } from '../../worker/schemas/experiment';
import type { PreExperimentData } from '../../web/features/pre-experiment/load';
import { currentCase, initialPreState, preReducer, remainingCases, serverHeldCount, type PreEvent, type PreState } from '../../web/features/pre-experiment/pre-experiment-machine';

const cases: ParticipantCase[] = [1, 2, 3].map((n) => ({ case_id: `compas_pre_00${n}`, case_number: n, dataset_type: 'compas', features: {} }));
const data: PreExperimentData = { sessionId: 'AB23CD45', userId: 7, datasetType: 'compas', cases, serverAnswered: [], resumed: false };

const run = (state: PreState, ...events: PreEvent[]) => events.reduce(preReducer, state);
const loaded = (answered: string[], tutorialDone = false) => run(initialPreState(tutorialDone), { type: 'loaded', data, answered });

describe('pre-experiment state machine', () => {
  it('opens on the intro for a new participant and on the next case for a returning one', () => {
    expect(loaded([]).screen).toEqual({ kind: 'intro' });
    const resumed = loaded(['compas_pre_001']);
    expect(resumed.screen).toEqual({ kind: 'answering' });
    expect(currentCase(resumed)?.case_id).toBe('compas_pre_002');
    expect(loaded(cases.map((c) => c.case_id)).screen).toEqual({ kind: 'sending', offline: false });
  });

  it('counts the answers the server holds, those answered on another device included, not only this browser\'s outbox', () => {
    // Resumed on a new browser after two answers given elsewhere; nothing in this browser's outbox.
    const resumed = loaded(['compas_pre_001', 'compas_pre_002']);
    expect(serverHeldCount(resumed, 0)).toBe(2);
    // The third answered here and still waiting to be sent, in the pause before the next case.
    const pausing = run(resumed, { type: 'answered', caseId: 'compas_pre_003' });
    expect(serverHeldCount(pausing, 1)).toBe(2);
    expect(serverHeldCount(run(pausing, { type: 'next_case' }), 0)).toBe(3);
  });

  it('never counts a saved answer for a case outside the set as done', () => {
    const state = loaded(['not_in_this_set', 'compas_pre_001']);
    expect([...state.answered]).toEqual(['compas_pre_001']);
    expect(remainingCases(state).map((c) => c.case_number)).toEqual([2, 3]);
  });

  it('starts only after the practice is done', () => {
    expect(run(loaded([]), { type: 'started' }).screen).toEqual({ kind: 'intro' });
    const practised = run(loaded([]), { type: 'tutorial_opened' }, { type: 'tutorial_done' });
    expect(practised.tutorial).toMatchObject({ open: false, done: true });
    expect(run(practised, { type: 'started' }).screen).toEqual({ kind: 'answering' });
  });

  it('keeps the answered case on screen through the pause, then moves on; one answer per case', () => {
    const answering = run(loaded([], true), { type: 'started' });
    const pausing = run(answering, { type: 'answered', caseId: 'compas_pre_001' });
    expect(pausing.pausingAfter).toBe('compas_pre_001');
    expect(currentCase(pausing)?.case_id).toBe('compas_pre_001');
    // A second submit during the pause, or for another case, changes nothing.
    expect(run(pausing, { type: 'answered', caseId: 'compas_pre_001' })).toBe(pausing);
    expect(run(answering, { type: 'answered', caseId: 'compas_pre_003' })).toBe(answering);
    const next = run(pausing, { type: 'next_case' });
    expect(next.pausingAfter).toBeNull();
    expect(currentCase(next)?.case_id).toBe('compas_pre_002');
  });

  it('sends after the last case, learns once every answer is confirmed, then completes', () => {
    let state = run(loaded(['compas_pre_001', 'compas_pre_002']), { type: 'answered', caseId: 'compas_pre_003' }, { type: 'next_case' });
    expect(state.screen).toEqual({ kind: 'sending', offline: false });
    state = run(state, { type: 'send_retrying', offline: true });
    expect(state.screen).toEqual({ kind: 'sending', offline: true });
    state = run(state, { type: 'all_confirmed' }, { type: 'learned', trained: true, samples: 3 });
    expect(state.screen).toEqual({ kind: 'complete', trained: true, samples: 3 });
  });

  it('ends a refused final send in the error screen, not in another retry', () => {
    const sending = loaded(cases.map((c) => c.case_id));
    const failed = run(sending, { type: 'send_failed', messageKey: 'pre.sendRefused', detail: 'HTTP 409' });
    expect(failed.screen).toEqual({ kind: 'error', messageKey: 'pre.sendRefused', detail: 'HTTP 409' });
    expect(run(failed, { type: 'send_retrying', offline: false }).screen.kind).toBe('error');
    expect(run(failed, { type: 'all_confirmed' }).screen.kind).toBe('error');
  });
});
