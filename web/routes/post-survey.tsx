import { useLocation } from 'react-router';
import { PostSurveyPage } from '../features/post-survey/post-survey-page';

export default function Route() {
  // A new debug session ID (a new search) starts the form afresh for that session.
  const { search } = useLocation();
  return <PostSurveyPage key={search} />;
}
