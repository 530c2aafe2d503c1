import { useLocation } from 'react-router';
import { PreExperimentPage } from '../features/pre-experiment/pre-experiment-page';

export default function Route() {
  // Resuming from the page's own error screen navigates here again: start afresh from the server's state.
  const { key } = useLocation();
  return <PreExperimentPage key={key} />;
}
