import { AdminGuard } from '../features/admin/admin-guard';
import { useAdminTexts } from '../features/admin/admin-i18n';
import { ModelVerificationPage } from '../features/model-verification/model-verification-page';
import { useModelVerificationTexts } from '../features/model-verification/model-verification-i18n';
import { QueryCache } from '../lib/query-cache';

export default function ModelVerificationRoute() {
  useAdminTexts();
  useModelVerificationTexts();
  return (
    <QueryCache>
      <AdminGuard>
        <ModelVerificationPage />
      </AdminGuard>
    </QueryCache>
  );
}
