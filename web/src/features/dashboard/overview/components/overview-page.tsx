import { useId } from 'react';
import { Link } from 'react-aria-components';
import { OnboardingStatusBadge } from '@/components/onboarding-status-badge';
import { Alert } from '@/components/ui/alert';
import { Card } from '@/components/ui/card';
import { PageHeader } from '@/components/ui/page-header';
import { UserText } from '@/components/ui/user-text';
import type { OnboardingProfile, PartnerSession } from '@/lib/api/partner-types';
import { requirementLabel } from '@/lib/onboarding-labels';
import { useAccess } from '@/lib/partner-roles';
import './overview.css';

const NEXT_STEP: Record<OnboardingProfile['onboarding_status'], string> = {
  in_progress: 'Complete your application to go live.',
  under_review: 'Our compliance team is reviewing your application.',
  active: 'You are approved for live.',
  rejected: 'Your application was rejected; the sandbox keeps working.',
  suspended: 'Live access is suspended; the sandbox keeps working.',
};

const SECTIONS: Array<{ href: string; title: string; text: string; needsKeys?: true }> = [
  {
    href: '/accounts',
    title: 'Virtual accounts',
    text: 'Issue dedicated NUBAN account numbers to your customers and follow their credits.',
  },
  {
    href: '/developers/api-keys',
    title: 'API keys',
    text: 'Keys for your backend, one set per environment. Secrets are shown once.',
    needsKeys: true,
  },
  {
    href: '/developers/webhooks',
    title: 'Webhooks',
    text: 'Where we send events, the delivery log and the events of the last 30 days.',
  },
  {
    href: '/settings/users',
    title: 'Users',
    text: 'Who can sign in to this dashboard, and what each role may do.',
  },
  {
    href: '/settings/officers',
    title: 'Directors and officers',
    text: 'The directors and officers of your business on file with us.',
  },
];

/** The signed-in home: where onboarding stands, which environment this is, and where to go. */
export function OverviewPage({
  session,
  profile,
}: {
  session: PartnerSession;
  profile: OnboardingProfile | undefined;
}) {
  const onboardingId = useId();
  const environmentId = useId();
  const sectionsId = useId();
  const keys = useAccess('keys');
  const sections = SECTIONS.filter((section) => !section.needsKeys || keys.allowed);
  const due = profile?.requirements.currently_due.filter((item) => item !== 'submit') ?? [];
  const isLive = session.environment === 'live';

  return (
    <div className="overview">
      <title>Overview · Partner dashboard</title>
      <PageHeader
        title={<UserText>{session.business_name}</UserText>}
        eyebrow={<span className="muted">Overview</span>}
        description={`Company ${session.company_id}: your partner account at a glance.`}
      />
      <div className="overview__grid">
        <Card labelledBy={onboardingId}>
          <div className="overview__card-head">
            <h2 id={onboardingId}>Onboarding</h2>
            {profile ? <OnboardingStatusBadge status={profile.onboarding_status} /> : null}
          </div>
          {profile ? (
            <>
              <p>{NEXT_STEP[profile.onboarding_status]}</p>
              {profile.onboarding_status === 'in_progress' ? (
                due.length > 0 ? (
                  <>
                    <p className="overview__small">Still to do:</p>
                    <ul className="overview__list">
                      {due.map((item) => (
                        <li key={item}>{requirementLabel(item)}</li>
                      ))}
                    </ul>
                  </>
                ) : (
                  <p className="overview__small">Everything is in place: submit your application.</p>
                )
              ) : null}
              {profile.review_notes && profile.onboarding_status === 'in_progress' ? (
                <p className="overview__small">Our reviewers asked for changes: see the review notes.</p>
              ) : null}
            </>
          ) : (
            <p className="muted">Loading…</p>
          )}
          <Link className="button button--primary button--small" href="/onboarding">
            {profile?.onboarding_status === 'in_progress' ? 'Continue onboarding' : 'View application'}
          </Link>
        </Card>
        <Card labelledBy={environmentId}>
          <h2 id={environmentId}>Environment: {isLive ? 'live' : 'sandbox'}</h2>
          {isLive ? (
            <p>
              You are working with real accounts and money. Switch off live mode at the top of the page to go
              back to the sandbox.
            </p>
          ) : (
            <p>
              The sandbox behaves like live with test data: issue accounts and simulate credits to try your
              integration.
              {profile?.onboarding_status === 'active'
                ? ' You are approved: switch on live mode at the top of the page when you are ready.'
                : profile?.onboarding_status === 'suspended' || profile?.onboarding_status === 'rejected'
                  ? ''
                  : ' Live mode opens once your onboarding is approved.'}
            </p>
          )}
          {profile?.onboarding_status === 'suspended' ? (
            <Alert tone="warning" title="Your live access is suspended.">
              {profile.review_notes ? (
                <p>
                  Reason: <UserText>{profile.review_notes}</UserText>
                </p>
              ) : null}
              <p>
                Live API keys and live sessions are refused until we lift the suspension. Contact us to
                resolve it.
              </p>
            </Alert>
          ) : null}
          <p className="overview__small">
            API keys and data belong to one environment: what you create in the sandbox never shows in live.
          </p>
        </Card>
      </div>
      <section aria-labelledby={sectionsId} className="overview__sections">
        <h2 id={sectionsId}>Manage</h2>
        <ul className="overview__links">
          {sections.map((section) => (
            <li key={section.href}>
              <Link href={section.href} className="overview__link">
                {section.title}
              </Link>
              <span>{section.text}</span>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
