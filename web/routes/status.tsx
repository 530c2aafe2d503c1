import { StatusPage } from '../features/status/status-page';

export default function StatusRoute() {
  return <StatusPage />;
}
