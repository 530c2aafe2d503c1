import { describe, expect, it } from 'vitest';
import { initialSurveyState, surveyReducer, type Answers, type SurveyEvent, type SurveyState } from '../../web/features/post-survey/post-survey-machine';
import { completePostSurvey } from '../helpers/post-survey-answers';

const run = (state: SurveyState, ...events: SurveyEvent[]) => events.reduce(surveyReducer, state);
const loaded = (answers: Answers) => run(initialSurveyState(), { type: 'loaded', sessionId: 'AB23CD45', answers });

describe('post-survey state machine', () => {
  it('moves on only from a complete section, and reveals what is missing when next is tried', () => {
    const empty = loaded({ demographics: {}, benevolent: {}, bigfive: {}, locus: {}, cognition: {} });
    const tried = run(empty, { type: 'next' });
    expect(tried.section).toBe(0);
    expect([...tried.revealed]).toEqual(['demographics']);
    const done = run(loaded(completePostSurvey()), { type: 'next' });
    expect(done.section).toBe(1);
  });

  it('on submit with gaps, lists the incomplete sections and opens the first; a complete survey goes to submitting', () => {
    const answers = completePostSurvey();
    const gaps = { ...answers, benevolent: { ...answers.benevolent, initial_reaction_feelings: '' }, locus: { ...answers.locus, loc_4: null } };
    const tried = run(loaded(gaps), { type: 'section_chosen', index: 4 }, { type: 'submit' });
    expect(tried.incomplete).toEqual(['benevolent', 'locus']);
    expect(tried.section).toBe(1);
    expect(tried.screen.kind).toBe('form');
    const sent = run(loaded(answers), { type: 'submit' });
    expect(sent.screen.kind).toBe('submitting');
    expect(run(sent, { type: 'submitted', alreadyAnswered: true }).screen).toEqual({ kind: 'thanks', alreadyAnswered: true });
    expect(run(sent, { type: 'submit_failed', error: { key: 'postSurvey.errors.network' } })).toMatchObject({ screen: { kind: 'form' }, submitError: { key: 'postSurvey.errors.network' } });
  });
});
