/**
 * The research measures, each defined once with its formula, its source in the reliance
 * literature and the trials it is defined on. The dashboard, the API, the exports, the codebook
 * and `analysis/reproduce.py` all read these definitions; each measure is a ratio of sums over a
 * participant's trials (see `trialSums`), computed per participant first.
 *
 * Notation: initial = the participant's judgement before the AI, AI = the AI's prediction, final =
 * the judgement after it, truth = the ground truth. Every judgement is binary, so on a trial where
 * initial ≠ AI exactly one of them is right.
 */

/** The per-participant sums every measure is a ratio of (one row per participant and group). */
export const SUM_KEYS = [
  'trials',
  'aiTrials',
  'agreeFinal',
  'initialTrials',
  'initialDisagrees',
  'switchedToAi',
  'initialWrongAiRight',
  'switchedToRightAi',
  'initialRightAiWrong',
  'keptRightInitial',
  'initialCorrect',
  'finalCorrectWithInitial',
  'finalCorrect',
  'confidenceChange',
  'woaTrials',
  'woaSum',
  'leanKnown',
  'leansWithAi',
  'aiCorrect',
  'feedbackViewed',
  'feedbackViewMs',
  'adviceOffered',
  'adviceRequested',
  'timeLimited',
  'timedOut',
] as const;
export type SumKey = (typeof SUM_KEYS)[number];
export type Sums = Record<SumKey, number>;

export type Measure = {
  id: string;
  label: string;
  formula: string;
  /** Where the measure comes from (or the convention it follows). */
  source: string;
  units: string;
  /** The measure's possible range: every interval stays inside it. */
  range: [number, number];
  /** The sum counting the trials the measure is defined on (its n). */
  definedOn: SumKey;
  value: (s: Sums) => number | null;
};

/** The weight of advice per trial, in words (the codebook's, the dashboard's and reproduce.py's definition). */
export const WOA_FORMULA =
  'mean over trials with the AI shown after an initial judgement and its advice placed elsewhere than that judgement of clamp((q_final − q_initial) ÷ (q_AI − q_initial), 0, 1), where a judgement q is its class at its confidence read as a probability of the positive class (confidence 1…5 = 50 %, 62.5 %, 75 %, 87.5 %, 100 % for the class chosen: q = 0.5 ± (confidence − 1) × 0.125, + for the positive class) and the advice q_AI is the AI’s probability of the positive class where the panel showed it (ai_probability_shown), else its predicted class at certainty (1 or 0)';

const ratio = (num: SumKey, den: SumKey) => (s: Sums) => (s[den] > 0 ? s[num] / s[den] : null);
const complement = (num: SumKey, den: SumKey) => (s: Sums) => (s[den] > 0 ? (s[den] - s[num]) / s[den] : null);

const YIN = 'Yin, Wortman Vaughan & Wallach (2019), Understanding the Effect of Accuracy on Trust in Machine Learning Models, CHI 2019';
const SCHEMMER =
  'Schemmer, Kuehl, Benz, Bartos & Satzger (2023), Appropriate Reliance on AI Advice: Conceptualization and the Effect of Explanations, IUI 2023';
const SHARE = 'share 0–1';

/** The measures in the order the dashboard and the exports list them. */
export const MEASURES: Measure[] = [
  {
    id: 'agreement',
    label: 'Agreement fraction',
    formula: "trials with final = AI ÷ trials showing the AI's prediction",
    source: YIN,
    units: SHARE,
    range: [0, 1],
    definedOn: 'aiTrials',
    value: ratio('agreeFinal', 'aiTrials'),
  },
  {
    id: 'switch',
    label: 'Switch fraction',
    formula: 'trials with initial ≠ AI and final = AI ÷ trials with initial ≠ AI (the AI shown after an initial judgement)',
    source: YIN,
    units: SHARE,
    range: [0, 1],
    definedOn: 'initialDisagrees',
    value: ratio('switchedToAi', 'initialDisagrees'),
  },
  {
    id: 'rair',
    label: 'Relative AI reliance (RAIR)',
    formula: 'trials with initial wrong, AI right and final = AI ÷ trials with initial wrong and AI right',
    source: SCHEMMER,
    units: SHARE,
    range: [0, 1],
    definedOn: 'initialWrongAiRight',
    value: ratio('switchedToRightAi', 'initialWrongAiRight'),
  },
  {
    id: 'rsr',
    label: 'Relative self-reliance (RSR)',
    formula: 'trials with initial right, AI wrong and final = initial ÷ trials with initial right and AI wrong',
    source: SCHEMMER,
    units: SHARE,
    range: [0, 1],
    definedOn: 'initialRightAiWrong',
    value: ratio('keptRightInitial', 'initialRightAiWrong'),
  },
  {
    id: 'over_reliance',
    label: 'Over-reliance',
    formula: 'trials with initial right, AI wrong and final = AI ÷ trials with initial right and AI wrong (= 1 − RSR)',
    source: `${SCHEMMER} (negative AI reliance; the same condition as under-reliance, mirrored)`,
    units: SHARE,
    range: [0, 1],
    definedOn: 'initialRightAiWrong',
    value: complement('keptRightInitial', 'initialRightAiWrong'),
  },
  {
    id: 'under_reliance',
    label: 'Under-reliance',
    formula: 'trials with initial wrong, AI right and final = initial ÷ trials with initial wrong and AI right (= 1 − RAIR)',
    source: `${SCHEMMER} (negative self-reliance; the same condition as over-reliance, mirrored)`,
    units: SHARE,
    range: [0, 1],
    definedOn: 'initialWrongAiRight',
    value: complement('switchedToRightAi', 'initialWrongAiRight'),
  },
  {
    id: 'weight_of_advice',
    label: 'Weight of advice',
    formula: WOA_FORMULA,
    source:
      'Harvey & Fischer (1997), Taking Advice: Accepting Help, Improving Judgment, and Sharing Responsibility, OBHDP 70(2): the shift toward the advice as a share of the distance to it, (final − initial) ÷ (advice − initial), defined where the advice differs from the initial judgement; truncated to 0…1 as Yaniv (2004), Receiving Other People’s Advice, OBHDP 93(1), and later work do. Binary judgements with confidence are placed on the probability scale of the positive class (the half-range confidence format: Lichtenstein, Fischhoff & Phillips 1982, Calibration of Probabilities)',
    units: '0 = the final judgement stayed where the initial one was (or moved away from the advice) … 1 = it moved all the way to the advice (or past it); between: the share of the distance moved',
    range: [0, 1],
    definedOn: 'woaTrials',
    value: ratio('woaSum', 'woaTrials'),
  },
  {
    id: 'initial_accuracy',
    label: 'Accuracy before the AI',
    formula: 'trials with initial = truth ÷ trials with an initial judgement',
    source: 'accuracy of the initial judgement (Yin et al. 2019; Schemmer et al. 2023)',
    units: SHARE,
    range: [0, 1],
    definedOn: 'initialTrials',
    value: ratio('initialCorrect', 'initialTrials'),
  },
  {
    id: 'final_accuracy',
    label: 'Accuracy after the AI',
    formula: 'trials with final = truth ÷ trials',
    source: 'accuracy of the final judgement (Yin et al. 2019; Schemmer et al. 2023)',
    units: SHARE,
    range: [0, 1],
    definedOn: 'trials',
    value: ratio('finalCorrect', 'trials'),
  },
  {
    id: 'accuracy_gain',
    label: 'Accuracy gain',
    formula: '(trials with final = truth − trials with initial = truth) ÷ trials with an initial judgement',
    source: 'difference of the two accuracies on the same trials',
    units: 'difference of shares (−1…1)',
    range: [-1, 1],
    definedOn: 'initialTrials',
    value: (s) => (s.initialTrials > 0 ? (s.finalCorrectWithInitial - s.initialCorrect) / s.initialTrials : null),
  },
  {
    id: 'confidence_change',
    label: 'Confidence change',
    formula: 'mean of final_confidence − initial_confidence over trials with an initial judgement',
    source: 'descriptive',
    units: 'confidence points (−4…4)',
    range: [-4, 4],
    definedOn: 'initialTrials',
    value: ratio('confidenceChange', 'initialTrials'),
  },
  {
    id: 'ai_accuracy',
    label: "The AI's accuracy",
    formula: "trials with AI = truth ÷ trials showing the AI's prediction",
    source: 'the accuracy the participant saw the AI have, set by a condition with aiAccuracy (Yin, Wortman Vaughan & Wallach 2019 varied it between subjects)',
    units: SHARE,
    range: [0, 1],
    definedOn: 'aiTrials',
    value: ratio('aiCorrect', 'aiTrials'),
  },
  {
    id: 'feedback_viewing_time',
    label: 'Outcome feedback viewing time',
    formula: 'mean of feedback_viewing_time_ms ÷ 1000 over trials whose outcome feedback was viewed',
    source:
      'time spent on the outcome shown after each case, set by a condition with outcomeFeedback (Bansal, Nushi, Kamar, Weld, Lasecki & Horvitz 2019, HCOMP, gave feedback after each decision; Lai et al. 2023, FAccT, list it among the design choices)',
    units: 'seconds',
    range: [0, 86400],
    definedOn: 'feedbackViewed',
    value: (s) => (s.feedbackViewed > 0 ? s.feedbackViewMs / s.feedbackViewed / 1000 : null),
  },
  {
    id: 'advice_request_rate',
    label: 'Advice request rate',
    formula: "trials on which the participant asked for the AI's advice ÷ trials of a condition that gave it only on request (adviceOnRequest); the reliance measures above count only the trials where the advice was seen",
    source:
      'the share of cases on which on-demand advice was asked for (Buçinca, Malaya & Gajos 2021, To Trust or to Think: Cognitive Forcing Functions Can Reduce Overreliance on AI in AI-assisted Decision-making, CSCW; Liu, Lai & Tan 2021, CSCW, let participants ask for the AI too)',
    units: SHARE,
    range: [0, 1],
    definedOn: 'adviceOffered',
    value: ratio('adviceRequested', 'adviceOffered'),
  },
  {
    id: 'timeout_rate',
    label: 'Timeout rate',
    formula:
      "trials on which a judgement step's time limit ran out (the page's word, checked against the Worker's clock) ÷ trials of a condition with a time limit (timeLimit); a timed-out trial counts in every other measure with the judgement taken when the time ran out (onTimeout submit) or given after it (overrun)",
    source:
      'the share of decisions not made within the time allowed (Swaroop, Buçinca, Gajos & Doshi-Velez 2024, Accuracy-Time Tradeoffs in AI-Assisted Decision Making under Time Pressure, IUI; Rastogi et al. 2022, Deciding Fast and Slow, CSCW)',
    units: SHARE,
    range: [0, 1],
    definedOn: 'timeLimited',
    value: ratio('timedOut', 'timeLimited'),
  },
];

/** Calibration: accuracy of the final judgements at each confidence level. */
export const CALIBRATION_FORMULA = 'trials with final = truth ÷ trials, among trials with final_confidence = c (c = 1…5)';

/** The share of trials whose bars shown, summed with their signs, leaned toward the AI's own prediction. */
export const LEAN_FORMULA = "trials whose shown bars' signed shares sum toward the AI's predicted label (above 0 for the positive class, below 0 for the negative) ÷ trials with bars";

/** How group figures are summarised: the unit, the interval and the alpha model (the dashboard, docs/dashboard-and-exports.md and the codebook say it in these words). */
export const SUMMARY_METHOD =
  'Each measure is computed per participant over the trials it is defined on; a group figure is the mean of its participants’ values with a 95% percentile-bootstrap interval (participants resampled with replacement, 2,000 resamples, from a seeded mulberry32 stream of the group’s own: seed 20190504 XOR the FNV-1a hash of the group’s name, so groups do not share resamples; see analysis/reproduce.py), so it stays inside the measure’s range. Differences between conditions are differences of participant means with the same bootstrap, each condition resampled on its own. The alpha effect within participants is a logistic regression of the outcome on alpha over the human-aligned trials of a condition, with standard errors clustered by participant and the slope tested against Student’s t with participants − 1 degrees of freedom, the small-cluster reference (statsmodels Logit(...).fit(cov_type="cluster", use_t=True)); below 30 participants the figures say the clusters are few. By default every participant with trials is counted, finished or not; completers only is a choice.';

export const emptySums = (): Sums => Object.fromEntries(SUM_KEYS.map((k) => [k, 0])) as Sums;
export const addSums = (into: Sums, row: Sums) => {
  for (const k of SUM_KEYS) into[k] += Number(row[k]);
};
