import { AuditLogPage } from '@/features/audit-log/components/audit-log-page';

export function AuditRoute() {
  return <AuditLogPage />;
}
