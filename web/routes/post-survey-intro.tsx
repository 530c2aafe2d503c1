import { PostSurveyIntroPage } from '../features/post-survey/post-survey-intro-page';

export default function Route() {
  return <PostSurveyIntroPage />;
}
