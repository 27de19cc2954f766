import { useId } from 'react';
import { Button, Disclosure, DisclosurePanel, Heading } from 'react-aria-components';
import { Badge, type BadgeTone } from '@/components/ui/badge';
import { Card } from '@/components/ui/card';
import { DateTime } from '@/components/ui/date-time';
import { DetailList } from '@/components/ui/detail-list';
import { UserText, userText } from '@/components/ui/user-text';
import type { KycCheck, PartnerRecord } from '@/lib/api/operator-types';
import { formatDate } from '@/lib/format';
import { BUSINESS_TYPE_LABELS, humanize } from '@/lib/onboarding-labels';

const KYC_STATUS: Record<KycCheck['outcome'], { label: string; tone: BadgeTone }> = {
  passed: { label: 'KYC passed', tone: 'success' },
  failed: { label: 'KYC failed', tone: 'danger' },
  error: { label: 'KYC not completed', tone: 'warning' },
};

export function ProfileCard({ partner }: { partner: PartnerRecord }) {
  const headingId = useId();
  return (
    <Card labelledBy={headingId} className="partner-section">
      <h2 id={headingId}>Business profile</h2>
      <DetailList
        items={[
          { term: 'Business name', value: userText(partner.business_name) },
          { term: 'Legal name', value: userText(partner.legal_business_name) },
          {
            term: 'Business type',
            value: partner.business_type ? BUSINESS_TYPE_LABELS[partner.business_type] : null,
          },
          { term: 'RC number', value: userText(partner.rc_number) },
          { term: 'Address', value: userText(partner.address) },
          {
            term: 'Website',
            value: partner.website ? (
              <a href={partner.website} target="_blank" rel="noopener noreferrer">
                <UserText>{partner.website}</UserText>
              </a>
            ) : null,
          },
          {
            term: 'E-mail',
            value: (
              <>
                <UserText>{partner.email}</UserText>{' '}
                {partner.verified ? (
                  <Badge tone="success">Verified</Badge>
                ) : (
                  <Badge tone="warning">Not verified</Badge>
                )}
              </>
            ),
          },
          { term: 'Phone', value: userText(partner.phone) },
          { term: 'Registered', value: <DateTime value={partner.created_at} /> },
        ]}
      />
    </Card>
  );
}

export function RepresentativeCard({ partner }: { partner: PartnerRecord }) {
  const headingId = useId();
  const representative = partner.representative;
  return (
    <Card labelledBy={headingId} className="partner-section">
      <h2 id={headingId}>Compliance representative</h2>
      {representative ? (
        <>
          <div className="kyc-result" data-outcome={representative.kyc.status}>
            <Badge tone={KYC_STATUS[representative.kyc.status].tone}>
              {KYC_STATUS[representative.kyc.status].label}
            </Badge>
            <p className="kyc-result__message">
              <UserText>{representative.kyc.message}</UserText>
            </p>
            <p className="kyc-result__meta">
              {representative.kyc.provider} · <DateTime value={representative.kyc.checked_at} />
            </p>
          </div>
          <DetailList
            items={[
              {
                term: 'Name',
                value: (
                  <>
                    <UserText>{representative.first_name}</UserText>{' '}
                    <UserText>{representative.last_name}</UserText>
                  </>
                ),
              },
              { term: 'Designation', value: humanize(representative.designation) },
              {
                term: 'BVN',
                value: (
                  <>
                    <code className="masked">{representative.bvn}</code>{' '}
                    {representative.bvn_locked ? (
                      <span className="muted">(locked after a passed check)</span>
                    ) : null}
                  </>
                ),
              },
              { term: 'Date of birth', value: formatDate(representative.dob) },
              { term: 'Gender', value: humanize(representative.gender) },
              { term: 'ID type', value: humanize(representative.id_type) },
              { term: 'E-mail', value: userText(representative.email) },
              { term: 'Phone', value: userText(representative.phone) },
              { term: 'Address', value: userText(representative.address) },
            ]}
          />
          {partner.kyc_checks.length > 0 ? (
            <Disclosure className="disclosure">
              <Heading level={3} className="disclosure__heading">
                <Button slot="trigger" className="disclosure__trigger">
                  <span className="disclosure__chevron" aria-hidden="true">
                    ▸
                  </span>
                  KYC checks ({partner.kyc_checks.length})
                </Button>
              </Heading>
              <DisclosurePanel className="disclosure__panel">
                <ul className="kyc-checks">
                  {partner.kyc_checks.map((check) => (
                    <li key={check.id}>
                      <Badge tone={KYC_STATUS[check.outcome].tone}>{KYC_STATUS[check.outcome].label}</Badge>{' '}
                      <span className="kyc-checks__meta">
                        <DateTime value={check.created_at} /> · {check.provider} · BVN{' '}
                        <code className="masked">{check.bvn}</code>
                      </span>
                      <span className="kyc-checks__message">
                        <UserText>{check.message}</UserText>
                      </span>
                    </li>
                  ))}
                </ul>
              </DisclosurePanel>
            </Disclosure>
          ) : null}
        </>
      ) : (
        <p className="muted">The partner has not named a compliance representative yet.</p>
      )}
    </Card>
  );
}
