/**
 * The feature columns of each dataset's cases, in the order the models and case cards use, with
 * the meaning and units the export codebook gives for each (part 1 §3, part 2 §3). Set-up scripts
 * read the same list, so a case's stored features and the exported columns cannot drift apart.
 */
import type { DatasetType } from './study-config';

type Feature = {
  name: string;
  meaning: string;
  type: 'integer' | 'number' | 'category';
  units?: string;
  /** A category stored as the dataset codebook's integer codes: every code the codebook defines. */
  codes?: { min: number; max: number };
};

const f = (name: string, type: Feature['type'], meaning: string, units?: string): Feature => ({ name, meaning, type, units });
/** A category the dataset records as integer codes from `min` to `max` (its codebook's numbering). */
const coded = (name: string, meaning: string, min: number, max: number): Feature => ({
  name,
  type: 'category',
  meaning: `${meaning} (dataset coding ${min}–${max})`,
  codes: { min, max },
});

/** The codes an integer-coded category may take, as LightGBM's encoding writes them ("1", "2", …). */
export const codebookCategories = (feature: Feature) =>
  feature.codes ? Array.from({ length: feature.codes.max - feature.codes.min + 1 }, (_, i) => String(feature.codes!.min + i)) : [];

export const DATASET_FEATURES: Record<DatasetType, Feature[]> = {
  adult_income: [
    f('age', 'integer', 'Age of the person', 'years'),
    f('workclass', 'category', 'Employer type (UCI Adult coding)'),
    f('fnlwgt', 'integer', 'Census sampling weight (UCI Adult)'),
    f('education', 'category', 'Highest education level'),
    f('education_num', 'integer', 'Education level as a number (UCI Adult coding, 1–16)'),
    f('marital_status', 'category', 'Marital status'),
    f('occupation', 'category', 'Occupation group'),
    f('relationship', 'category', 'Role in the household'),
    f('race', 'category', 'Race as recorded by the census'),
    f('sex', 'category', 'Sex as recorded by the census'),
    f('capital_gain', 'integer', 'Capital gains in the year', 'US dollars'),
    f('capital_loss', 'integer', 'Capital losses in the year', 'US dollars'),
    f('hours_per_week', 'integer', 'Working hours per week', 'hours'),
    f('native_country', 'category', 'Country of origin'),
  ],
  speed_dating: [
    f('gender', 'integer', "Participant's gender (0 female, 1 male; Fisman et al. coding)"),
    f('age', 'integer', "Participant's age", 'years'),
    coded('race', "Participant's race", 1, 6),
    coded('field_cd', 'Field of study', 1, 18),
    f('income', 'number', 'Median household income of the zip code', 'US dollars'),
    coded('career_c', 'Intended career', 1, 17),
    f('pf_o_att', 'number', "Partner's stated importance of attractiveness", 'points of 100'),
    f('pf_o_sin', 'number', "Partner's stated importance of sincerity", 'points of 100'),
    f('pf_o_int', 'number', "Partner's stated importance of intelligence", 'points of 100'),
    f('pf_o_fun', 'number', "Partner's stated importance of being fun", 'points of 100'),
    f('pf_o_amb', 'number', "Partner's stated importance of ambition", 'points of 100'),
    f('pf_o_sha', 'number', "Partner's stated importance of shared interests", 'points of 100'),
    f('attr_o', 'number', "Partner's rating of the participant's attractiveness", '1–10'),
    f('sinc_o', 'number', "Partner's rating of the participant's sincerity", '1–10'),
    f('intel_o', 'number', "Partner's rating of the participant's intelligence", '1–10'),
    f('fun_o', 'number', "Partner's rating of how fun the participant is", '1–10'),
    f('amb_o', 'number', "Partner's rating of the participant's ambition", '1–10'),
    f('shar_o', 'number', "Partner's rating of shared interests", '1–10'),
  ],
  compas: [
    f('sex', 'category', 'Sex as recorded by Broward County'),
    f('age', 'integer', 'Age at screening', 'years'),
    f('race', 'category', 'Race as recorded by Broward County'),
    f('juv_fel_count', 'integer', 'Juvenile felony count', 'offences'),
    f('juv_misd_count', 'integer', 'Juvenile misdemeanour count', 'offences'),
    f('juv_other_count', 'integer', 'Other juvenile offence count', 'offences'),
    f('priors_count', 'integer', 'Prior offence count', 'offences'),
    f('c_charge_degree', 'category', 'Charge degree (F felony, M misdemeanour)'),
  ],
};

export const FEATURES: Record<DatasetType, string[]> = {
  adult_income: DATASET_FEATURES.adult_income.map((x) => x.name),
  speed_dating: DATASET_FEATURES.speed_dating.map((x) => x.name),
  compas: DATASET_FEATURES.compas.map((x) => x.name),
};
