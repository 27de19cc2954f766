import { ApiError } from '@baas/sdk';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link } from 'react-aria-components';
import { OnboardingStatusBadge } from '@/components/onboarding-status-badge';
import { Alert } from '@/components/ui/alert';
import { Loading } from '@/components/ui/loading';
import { PageHeader } from '@/components/ui/page-header';
import { QueryView } from '@/components/ui/query-view';
import { errorMessage } from '@/lib/api/api-error';
import type { PartnerRecord } from '@/lib/api/operator-types';
import { BUSINESS_TYPE_LABELS } from '@/lib/onboarding-labels';
import { partnerQuery } from '../api/partner';
import { DecisionPanel } from './decision-panel';
import { DocumentsSection } from './documents-section';
import { ProfileCard, RepresentativeCard } from './partner-details';
import './partner.css';
import { UserText, visibleControls } from '@/components/ui/user-text';

export interface PartnerPageProps {
  companyId: number;
  /** Admins approve, reject, suspend and reinstate; reviewers decide documents and request changes. */
  isAdmin: boolean;
  /** The signed-in operator: a partner assigned to them shows "you". */
  operatorId: string;
  /** The partner's audit trail, composed in by the app. */
  history: ReactNode;
}

const BackLink = () => (
  <Link href="/review" className="back-link">
    ← Review queue
  </Link>
);

/** Everything a reviewer needs to decide on one partner, and the decisions themselves. */
export function PartnerPage({ companyId, isAdmin, operatorId, history }: PartnerPageProps) {
  const partner = useQuery(partnerQuery(companyId));
  return (
    <QueryView
      query={partner}
      loading={
        <PartnerHeading title="Partner">
          <Loading label="Loading the partner…" />
        </PartnerHeading>
      }
      renderError={(error) => {
        const missing = error instanceof ApiError && error.status === 404;
        return (
          <PartnerHeading title={missing ? 'Partner not found' : 'Partner'}>
            <Alert tone={missing ? 'warning' : 'error'}>
              <p>{missing ? `There is no partner with company ID ${companyId}.` : errorMessage(error)}</p>
            </Alert>
          </PartnerHeading>
        );
      }}
    >
      {(record) => (
        <PartnerReview record={record} isAdmin={isAdmin} operatorId={operatorId} history={history} />
      )}
    </QueryView>
  );
}

/** The page while there is no record to show: loading, or why not. */
function PartnerHeading({ title, children }: { title: string; children: ReactNode }) {
  return (
    <>
      <title>Partner · Operator console</title>
      <PageHeader eyebrow={<BackLink />} title={title} />
      {children}
    </>
  );
}

function PartnerReview({
  record,
  isAdmin,
  operatorId,
  history,
}: { record: PartnerRecord } & Omit<PartnerPageProps, 'companyId'>) {
  return (
    <div className="partner-page">
      <title>{`${visibleControls(record.business_name)} · Operator console`}</title>
      <PageHeader
        eyebrow={<BackLink />}
        title={<UserText>{record.business_name}</UserText>}
        aside={<OnboardingStatusBadge status={record.onboarding_status} />}
        description={
          <>
            {record.legal_business_name !== record.business_name ? (
              <>
                <UserText>{record.legal_business_name}</UserText> ·{' '}
              </>
            ) : null}
            {record.business_type ? `${BUSINESS_TYPE_LABELS[record.business_type]} · ` : null}
            Company {record.company_id} ·{' '}
            <Link href={`/transfers?company_id=${record.company_id}`}>Transfers</Link>
          </>
        }
      />
      <div className="partner-layout">
        <div className="partner-layout__main">
          <DecisionPanel partner={record} isAdmin={isAdmin} operatorId={operatorId} />
          <DocumentsSection partner={record} />
        </div>
        <div className="partner-layout__side">
          <ProfileCard partner={record} />
          <RepresentativeCard partner={record} />
        </div>
        <div className="partner-layout__history">{history}</div>
      </div>
    </div>
  );
}
