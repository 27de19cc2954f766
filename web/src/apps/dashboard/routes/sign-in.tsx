import { HomeLayout } from '@/components/layout/home-layout';
import { SignInForm } from '@/features/auth/components/sign-in-form';
import { PlannedPageList } from '@/features/planned-pages/components/planned-page-list';
import { DASHBOARD_PLANNED_PAGES } from '../planned-pages';

export function SignInRoute() {
  return (
    <>
      <title>Sign in · Partner dashboard</title>
      <HomeLayout
        heading="Partner dashboard"
        intro="Onboard your business, manage API keys and webhooks, and issue virtual accounts to your customers, in the sandbox and live."
        primary={<SignInForm title="Sign in" description="Use the e-mail address you registered with." />}
        secondary={<PlannedPageList pages={DASHBOARD_PLANNED_PAGES} />}
      />
    </>
  );
}
