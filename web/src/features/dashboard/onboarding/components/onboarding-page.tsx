import { useEffect } from 'react';
import { useLocation } from 'react-router';
import { OnboardingStatusBadge } from '@/components/onboarding-status-badge';
import { RoleNote } from '@/components/role-note';
import { PageHeader } from '@/components/ui/page-header';
import { QueryView } from '@/components/ui/query-view';
import type { OnboardingProfile } from '@/lib/api/partner-types';
import { useProfile } from '../api/profile';
import { stepStates } from '../steps';
import { DocumentsStep } from './documents-step';
import { OnboardingProgress } from './onboarding-progress';
import { ProfileStep } from './profile-step';
import { RepresentativeStep } from './representative-step';
import { ReviewNotice } from './review-notice';
import { SubmitStep } from './submit-step';
import './onboarding.css';

/** The guided onboarding: each step's form and state as `requirements` has it, and the reviewer's word. */
export function OnboardingPage() {
  const profile = useProfile();

  return (
    <div className="onboarding">
      <title>Onboarding · Partner dashboard</title>
      <PageHeader
        title="Onboarding"
        aside={profile.data ? <OnboardingStatusBadge status={profile.data.onboarding_status} /> : null}
        description="Tell us about your business so our compliance team can approve you for live. Each step is saved as you go."
      />
      <RoleNote access="onboarding" className="onboarding__role-note" />
      <QueryView
        query={profile}
        loading="Loading your application…"
        errorTitle="Your application could not be loaded."
        canRetry
      >
        {(data) => <OnboardingSteps profile={data} />}
      </QueryView>
    </div>
  );
}

function OnboardingSteps({ profile }: { profile: OnboardingProfile }) {
  const states = stepStates(profile);
  const { hash } = useLocation();
  // A link to a step (/onboarding#representative, from the directors and officers page) lands on it once it is drawn.
  useEffect(() => {
    if (hash) document.getElementById(decodeURIComponent(hash.slice(1)))?.scrollIntoView();
  }, [hash]);
  return (
    <>
      <ReviewNotice profile={profile} />
      <div className="onboarding__layout">
        <OnboardingProgress states={states} />
        <div className="onboarding__steps">
          <ProfileStep profile={profile} state={states.profile} />
          <RepresentativeStep profile={profile} state={states.representative} />
          <DocumentsStep profile={profile} state={states.documents} />
          <SubmitStep profile={profile} state={states.submit} />
        </div>
      </div>
    </>
  );
}
