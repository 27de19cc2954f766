import { ApiError } from '@baas/sdk';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link } from 'react-aria-components';
import { OnboardingStatusBadge } from '@/components/onboarding-status-badge';
import { Alert } from '@/components/ui/alert';
import { Loading } from '@/components/ui/loading';
import { PageHeader } from '@/components/ui/page-header';
import { errorMessage } from '@/lib/api/api-error';
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
  /** The partner's audit trail, composed in by the app. */
  history: ReactNode;
}

const BackLink = () => (
  <Link href="/review" className="back-link">
    ← Review queue
  </Link>
);

/** Everything a reviewer needs to decide on one partner, and the decisions themselves. */
export function PartnerPage({ companyId, isAdmin, history }: PartnerPageProps) {
  const partner = useQuery(partnerQuery(companyId));

  if (partner.isPending) {
    return (
      <>
        <title>Partner · Operator console</title>
        <PageHeader eyebrow={<BackLink />} title="Partner" />
        <Loading label="Loading the partner…" />
      </>
    );
  }
  if (partner.isError) {
    const missing = partner.error instanceof ApiError && partner.error.status === 404;
    return (
      <>
        <title>Partner · Operator console</title>
        <PageHeader eyebrow={<BackLink />} title={missing ? 'Partner not found' : 'Partner'} />
        <Alert tone={missing ? 'warning' : 'error'}>
          <p>{missing ? `There is no partner with company ID ${companyId}.` : errorMessage(partner.error)}</p>
        </Alert>
      </>
    );
  }

  const record = partner.data;
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
            Company {record.company_id}
          </>
        }
      />
      <div className="partner-layout">
        <div className="partner-layout__main">
          <DecisionPanel partner={record} isAdmin={isAdmin} />
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
