/** The data-quality flags a participant can carry (definitions: `services/analytics/quality-flags.ts`); shared with the SPA. */
export const QUALITY_FLAGS = ['speeder', 'straightliner', 'bfi_inconsistent', 'long_run', 'many_resumes', 'failed_understanding_tests'] as const;
export type QualityFlag = (typeof QUALITY_FLAGS)[number];
