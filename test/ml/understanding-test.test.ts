import { describe, expect, it } from 'vitest';
import { mixContributions, normaliseContributions } from '../../worker/ml/explanation';
import { datasetOf } from '../../worker/schemas/datasets';
import { DATASET_TYPES } from '../../worker/schemas/study-config';
import {
  drawUnderstandingQuestions,
  NO_INFLUENCE_BELOW,
  SAMPLE_ALPHA,
  SAMPLE_ROLES,
  sampleCaptionShares,
  sampleShares,
  scoreUnderstanding,
  UNDERSTANDING_QUESTIONS,
  understandingSampleOf,
} from '../../worker/schemas/understanding-test';

describe('understanding test samples', () => {
  it.each(DATASET_TYPES)('%s: the shown bars are the alpha 0.5 mix of the two sets, and each role reads as its questions say', (dataset) => {
    const sample = understandingSampleOf(dataset);
    const names = [...SAMPLE_ROLES.map((r) => sample.features[r].feature), 'other'];
    const ai = normaliseContributions(names, [...SAMPLE_ROLES.map((r) => sample.features[r].ai), sample.otherAi]);
    const user = normaliseContributions(names, [...SAMPLE_ROLES.map((r) => sample.features[r].user), sample.otherUser]);
    expect(ai.reduce((s, c) => s + c.abs_importance, 0)).toBeCloseTo(1, 12);
    const mixed = mixContributions(ai, user, SAMPLE_ALPHA);
    const shown = sampleShares(sample);
    shown.forEach((bar, i) => expect(bar.share).toBeCloseTo(mixed[i]!.importance, 12));
    const [a, b, c, d] = shown;
    // a pushes most (toward the positive label), b toward the negative and more than c, d is no influence.
    expect(a!.share).toBeGreaterThan(Math.max(Math.abs(b!.share), c!.share));
    expect(b!.share).toBeLessThan(0);
    expect(Math.abs(b!.share)).toBeGreaterThan(c!.share);
    expect(c!.share).toBeGreaterThanOrEqual(NO_INFLUENCE_BELOW);
    expect(Math.abs(d!.share)).toBeLessThan(NO_INFLUENCE_BELOW);
    // chart_share's answer is "about 40 %".
    expect(a!.share).toBeCloseTo(0.4, 1);
    // The caption's two figures are what the picture shows, and make 100 %.
    const caption = sampleCaptionShares(sample);
    expect(caption.shown).toBeCloseTo(shown.reduce((s, bar) => s + Math.abs(bar.share), 0), 12);
    expect(caption.shown + caption.other).toBeCloseTo(1, 9);
    expect(caption.shown).toBeLessThan(0.95);
    // The rest, spread over the features not shown, leaves the four as the largest bars.
    expect(Math.abs(mixed[4]!.importance) / (datasetOf(dataset).columns.length - 4)).toBeLessThan(c!.share);
  });
});

describe('understanding test pool', () => {
  it('has at least 15 questions with distinct IDs, each with its right answer among its options', () => {
    expect(UNDERSTANDING_QUESTIONS.length).toBeGreaterThanOrEqual(15);
    expect(new Set(UNDERSTANDING_QUESTIONS.map((q) => q.id)).size).toBe(UNDERSTANDING_QUESTIONS.length);
    for (const q of UNDERSTANDING_QUESTIONS) expect(q.options).toContain(q.correct);
  });

  it('draws 5 distinct questions, differently on each draw, with their options shuffled', () => {
    const draws = Array.from({ length: 20 }, () => drawUnderstandingQuestions());
    for (const d of draws) {
      expect(d).toHaveLength(5);
      expect(new Set(d.map((q) => q.id)).size).toBe(5);
    }
    expect(new Set(draws.map((d) => d.map((q) => q.id).join())).size).toBeGreaterThan(15);
    // Options shuffle: one question's options come in more than one order (drawn until it has come up in two; 20 draws alone missed it now and then).
    const optionOrders = new Set<string>();
    for (let i = 0; i < 1000 && optionOrders.size < 2; i++) {
      const q = drawUnderstandingQuestions().find((x) => x.id === 'concept_length');
      if (q) optionOrders.add(q.options.join());
    }
    expect(optionOrders.size).toBeGreaterThan(1);
  });

  it('passes only at 5 of 5', () => {
    const drawn = drawUnderstandingQuestions();
    const right = drawn.map((q) => ({ question_id: q.id, answer: q.correct }));
    expect(scoreUnderstanding(right)).toEqual({ correct: 5, total: 5, passed: true });
    const oneWrong = right.map((a, i) => (i === 2 ? { ...a, answer: drawn[2]!.options.find((o) => o !== drawn[2]!.correct)! } : a));
    expect(scoreUnderstanding(oneWrong)).toEqual({ correct: 4, total: 5, passed: false });
    expect(scoreUnderstanding(right.slice(0, 4)).passed).toBe(false);
  });
});
