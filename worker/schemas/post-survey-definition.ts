/**
 * The shape of a post-survey definition: its sections, the kinds of question and what each
 * carries (part 2 §3 and §5). The instrument (`post-survey-instrument.ts`) is written in it and the
 * rules (`post-survey.ts`) read it; this module takes nothing from either.
 */

export const SECTION_IDS = ['demographics', 'benevolent', 'bigfive', 'locus', 'cognition'] as const;
export type SectionId = (typeof SECTION_IDS)[number];

export const FACTORS = [
  'extraversion',
  'agreeableness',
  'conscientiousness',
  'emotional_stability',
  'openness',
  'internal_control',
  'external_control',
  'need_for_cognition',
] as const;
export type Factor = (typeof FACTORS)[number];
/** Scale anchors: the words at a scale's two ends (the wording of the points between is not shown). */
export const ANCHORS = ['agree5', 'agree7', 'extent5', 'fit5', 'rating7'] as const;

type Text = { ja: string; en: string };
type Option = { value: string; label: Text };
/** Asked only of participants whose condition showed the AI, or its explanation (study configuration `conditions`). */
export type ShownTo = 'ai' | 'explanation';
type Common = { name: string; label: Text; optional?: boolean; shownTo?: ShownTo };

/** One question of the definition, by kind (part 2 §3 and §5). */
export type Question =
  | (Common & { kind: 'number'; min: number; max: number; unit?: Text })
  | (Common & { kind: 'radio'; options: Option[] })
  | (Common & {
      kind: 'scale';
      min: number;
      max: number;
      anchors: (typeof ANCHORS)[number];
      factor?: Factor;
      reverse?: boolean;
      /** Earlier ratings shown as chips beside this question when all of them are answered. */
      previousAnswers?: string[];
    })
  | (Common & { kind: 'text'; maxLength: number; minLength?: number })
  | (Common & { kind: 'multiselect'; options: Option[]; otherMaxLength: number })
  | {
      kind: 'info';
      name: string;
      label: Text;
      body: Text;
      /** The text for a participant whose condition showed no adjusted explanation (`body` says theirs were adjusted). */
      bodyUnadjusted?: Text;
      figure?: 'benevolent_example';
    };
export type AnsweredQuestion = Exclude<Question, { kind: 'info' }>;
export type Section = { id: SectionId; title: Text; intro?: Text; questions: Question[] };
export type PostSurveyDefinition = { sections: Section[] };
