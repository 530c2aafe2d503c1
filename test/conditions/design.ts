/**
 * The between-subject design the `conditions` test project runs: the worked example of docs/running-a-study.md:
 * four conditions (no AI, the AI's prediction alone, the AI's own explanation, the human-aligned
 * explanation), two variants of when the AI appears and how often one judges alone, the
 * prediction with the AI's confidence and the prediction of an AI right on 70 % of the cases,
 * stated as 90 % with a debrief at the end (issue #58, elements 3 and 1); the AI's own explanation
 * states no accuracy; the 70 % AI and judging alone once show the outcome after each case (element 4);
 * the 70 % AI is given only on request, after a 5 s wait, and the AI's own explanation after a 3 s
 * wait (element 2); the human-aligned explanation pays a bonus per correct final judgement (element 6);
 * the prediction with the AI's confidence gives each judgement 20 s, kept open when they run out (element 5).
 */
import { conditionSchema, type Condition } from '../../worker/schemas/study';

/** What a participant told the AI was right on 90 % of cases (it was right on 70 %) reads when they finish. */
export const STATED_DEBRIEF = {
  ja: 'この研究では、AIの正解率を90%と表示しましたが、実際にはあなたが見た50件のうち35件（70%）でAIは正解でした。表示した値は研究のために設定したものです。',
  en: 'In this study the AI was said to be right 90% of the time; on the 50 cases you saw it was right on 35 (70%). The figure shown was set for the study.',
};

/** What the human-aligned condition pays: £2, and 5p per correct final judgement up to £2.50. */
export const INCENTIVE = { base: 2, bonusPerCorrect: 0.05, cap: 2.5, currency: 'GBP' };

export const DESIGN: Condition[] = [
  { name: 'no_ai', shows: 'none', judgements: 2, share: 1 },
  { name: 'prediction_only', shows: 'ai_prediction', aiTiming: 'after_initial', share: 1 },
  { name: 'prediction_confidence', shows: 'ai_prediction', aiTiming: 'after_initial', aiConfidence: true, timeLimit: { seconds: 20, onTimeout: 'overrun' }, share: 1 },
  { name: 'prediction_70', shows: 'ai_prediction', aiTiming: 'after_initial', aiAccuracy: 0.7, statedAccuracy: { figure: 0.9, debrief: STATED_DEBRIEF }, outcomeFeedback: true, adviceOnRequest: true, adviceWaitSeconds: 5, share: 1 },
  { name: 'ai_explanation', shows: 'explanation', aiTiming: 'after_initial', alphaLevels: [1], statedAccuracy: 'none', adviceWaitSeconds: 3, share: 1 },
  { name: 'human_aligned', shows: 'explanation', aiTiming: 'after_initial', incentive: INCENTIVE, share: 1 },
  { name: 'explanation_with_case', shows: 'explanation', aiTiming: 'with_case', share: 1 },
  { name: 'no_ai_once', shows: 'none', judgements: 1, outcomeFeedback: true, share: 1 },
].map((c) => conditionSchema.parse(c));

/** The design without its forced waits, for tests of other things that reveal the AI at once (the waits: test/worker/advice-on-request.test.ts). */
export const DESIGN_WITHOUT_WAITS: Condition[] = DESIGN.map((c) => (c.shows === 'none' ? c : { ...c, adviceWaitSeconds: undefined }));
