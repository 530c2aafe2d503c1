import { useLocation } from 'react-router';
import { MainExperimentPage } from '../features/main-experiment/main-experiment-page';

export default function Route() {
  // Resuming from the page's own failure screen navigates here again: start afresh from the server's state.
  const { key } = useLocation();
  return <MainExperimentPage key={key} />;
}
