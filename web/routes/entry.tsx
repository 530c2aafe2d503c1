import { EntryPage } from '../features/entry/entry-page';

export default function Route() {
  return <EntryPage />;
}
