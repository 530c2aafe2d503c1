import { PreExperimentPage } from '../features/pre-experiment/pre-experiment-page';

export default function Route() {
  return <PreExperimentPage />;
}
