import { AdminGuard } from '../features/admin/admin-guard';
import { useAdminTexts } from '../features/admin/admin-i18n';
import { DashboardPage } from '../features/admin/dashboard-page';
import { QueryCache } from '../lib/query-cache';

export default function AdminRoute() {
  useAdminTexts();
  return (
    <QueryCache>
      <AdminGuard>
        <DashboardPage />
      </AdminGuard>
    </QueryCache>
  );
}
