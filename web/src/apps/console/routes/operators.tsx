import { Alert } from '@/components/ui/alert';
import { PageHeader } from '@/components/ui/page-header';
import { OperatorsPage } from '@/features/console/operators/components/operators-page';
import { useOperator } from '../layouts';

export function OperatorsRoute() {
  const operator = useOperator();
  if (operator.role !== 'admin') {
    return (
      <>
        <title>Operators · Operator console</title>
        <PageHeader title="Operators" />
        <Alert tone="info">
          <p>Only admins manage operators. Ask an admin if someone needs access.</p>
        </Alert>
      </>
    );
  }
  return <OperatorsPage currentOperatorId={operator.id} />;
}
