/** Route paths of the spec's route table (part 1 §2) that the SPA implements. */
export const paths = {
  introduction: '/introduction',
  status: '/status',
  errorTest: '/error-test',
  resume: '/resume',
} as const;
