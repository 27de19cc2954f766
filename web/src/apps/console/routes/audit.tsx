import { AuditLogPage } from '@/features/console/audit-log/components/audit-log-page';

export function AuditRoute() {
  return <AuditLogPage />;
}
