/** Route paths of the spec's route table (part 1 §2) that the SPA implements. */
export const paths = {
  root: '/',
  introduction: '/introduction',
  selection: '/experiment/selection',
  consent: '/experiment/consent',
  pre: '/experiment/pre',
  mainIntro: '/experiment/main-intro',
  main: '/experiment/main',
  postSurveyIntro: '/experiment/post-survey-intro',
  postSurvey: '/experiment/post-survey',
  postSurveyDebug: '/post-survey',
  complete: '/experiment/complete',
  resume: '/resume',
  status: '/status',
  errorTest: '/error-test',
} as const;
