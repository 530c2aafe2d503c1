import { ConsentPage } from '../features/consent/consent-page';

export default function Route() {
  return <ConsentPage />;
}
