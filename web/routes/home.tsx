import { AdminGuard } from '../features/admin/admin-guard';
import { useAdminTexts } from '../features/admin/admin-i18n';
import { HomePage } from '../features/admin/home-page';
import { QueryCache } from '../lib/query-cache';

export default function HomeRoute() {
  useAdminTexts();
  return (
    <QueryCache>
      <AdminGuard>
        <HomePage />
      </AdminGuard>
    </QueryCache>
  );
}
