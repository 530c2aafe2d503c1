import { CompletionPage } from '../features/post-survey/completion-page';

export default function Route() {
  return <CompletionPage />;
}
