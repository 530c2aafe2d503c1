import { WithdrawalPage } from '../features/withdrawal/withdrawal-page';

export default function Route() {
  return <WithdrawalPage />;
}
