import { ScreenedOutPage } from '../features/prolific/screened-out-page';

export default function Route() {
  return <ScreenedOutPage />;
}
