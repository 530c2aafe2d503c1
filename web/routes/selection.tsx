import { SelectionPage } from '../features/selection/selection-page';

export default function Route() {
  return <SelectionPage />;
}
