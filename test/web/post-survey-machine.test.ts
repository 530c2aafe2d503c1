import { describe, expect, it } from 'vitest';
import { initialSurveyState, surveyReducer, type Answers, type SurveyEvent, type SurveyState } from '../../web/features/post-survey/post-survey-machine';
import { answeredQuestions, postSurvey, postSurveyFor, questionLabels } from '../../worker/schemas/post-survey';
import { completePostSurvey } from '../helpers/post-survey-answers';

const run = (state: SurveyState, ...events: SurveyEvent[]) => events.reduce(surveyReducer, state);
const loaded = (answers: Answers, definition = postSurvey) => run(initialSurveyState(), { type: 'loaded', sessionId: 'AB23CD45', answers, definition });

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
    // Sections never passed are named, not marked: the section jumped to opens with nothing flagged.
    expect([...tried.revealed]).toEqual([]);
    expect(tried.missingShown).toBe(1);
    // Passing a section (leaving it for another) marks what it misses.
    const passed = run(tried, { type: 'section_chosen', index: 0 });
    expect([...passed.revealed]).toEqual(['benevolent']);
    const sent = run(loaded(answers), { type: 'submit' });
    expect(sent.screen.kind).toBe('submitting');
    expect(run(sent, { type: 'submitted', alreadyAnswered: true }).screen).toEqual({ kind: 'thanks', alreadyAnswered: true });
    expect(run(sent, { type: 'submit_failed', error: { key: 'postSurvey.errors.network' } })).toMatchObject({ screen: { kind: 'form' }, submitError: { key: 'postSurvey.errors.network' } });
  });

  it('asks only about what the condition showed, and tells each participant what was true for them', () => {
    const names = (d: typeof postSurvey) => d.sections.flatMap((s) => s.questions.map((q) => q.name));
    const alone = postSurveyFor({ ai: false, explanations: false, adjusted: false });
    expect(names(alone)).not.toContain('ai_trust_before_disclosure');
    expect(names(alone)).not.toContain('ai_explanation_helpfulness_before');
    const predictionOnly = postSurveyFor({ ai: true, explanations: false, adjusted: false });
    expect(names(predictionOnly)).toContain('ai_trust_before_disclosure');
    expect(names(predictionOnly)).not.toContain('ai_explanation_helpfulness_before');
    expect(names(postSurveyFor({ ai: true, explanations: true, adjusted: true }))).toEqual(names(postSurvey));
    const disclosure = (d: typeof postSurvey) => d.sections.flatMap((s) => s.questions).find((q) => q.name === 'benevolent_disclosure') as { body: { en: string } };
    expect(disclosure(postSurveyFor({ ai: true, explanations: true, adjusted: true })).body.en).toContain('some of the AI\'s explanations');
    expect(disclosure(alone).body.en).toContain('What you were shown was not adjusted');
    // A section complete without the questions the condition leaves out.
    const answers = completePostSurvey();
    delete (answers.demographics as Record<string, unknown>).ai_explanation_helpfulness_before;
    delete (answers.demographics as Record<string, unknown>).ai_trust_before_disclosure;
    delete (answers.demographics as Record<string, unknown>).ai_understanding_before_disclosure;
    expect(run(loaded(answers as Answers, alone), { type: 'next' }).section).toBe(1);
    expect(run(loaded(answers as Answers), { type: 'next' }).section).toBe(0);
  });

  it('names every question of a section uniquely in its messages, in both languages', () => {
    for (const section of postSurvey.sections) {
      for (const lang of ['ja', 'en'] as const) {
        const names = questionLabels(section, lang);
        expect(names.size).toBe(answeredQuestions(section).length);
        expect(new Set(names.values()).size, `${section.id} ${lang}`).toBe(names.size);
      }
    }
    const reasons = questionLabels(postSurvey.sections.find((s) => s.id === 'benevolent')!, 'en');
    expect([...reasons.values()].filter((n) => n.endsWith('Why (the positive side)')).every((n) => n.includes(' — '))).toBe(true);
  });
});
