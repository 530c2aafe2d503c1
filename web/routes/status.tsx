import { StatusPage } from '../features/status/status-page';
import { QueryCache } from '../lib/query-cache';

export default function StatusRoute() {
  return (
    <QueryCache>
      <StatusPage />
    </QueryCache>
  );
}
