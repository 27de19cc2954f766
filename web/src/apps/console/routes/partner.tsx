import { useParams } from 'react-router';
import { NotFoundPage } from '@/components/not-found-page';
import { AuditTrail } from '@/features/console/audit-log/components/audit-trail';
import { PartnerPage } from '@/features/console/partner-review/components/partner-page';
import { APP_NAME, useOperator } from '../layouts';

export function PartnerRoute() {
  const operator = useOperator();
  const { companyId } = useParams();
  const id = Number(companyId);
  if (!/^[0-9]{1,10}$/.test(companyId ?? '') || id < 1) return <NotFoundPage appName={APP_NAME} />;
  return (
    <PartnerPage
      key={id}
      companyId={id}
      isAdmin={operator.role === 'admin'}
      operatorId={operator.id}
      history={<AuditTrail companyId={id} />}
    />
  );
}
