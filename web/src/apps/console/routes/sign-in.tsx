import { HomeLayout } from '@/components/layout/home-layout';
import { SignInForm } from '@/features/auth/components/sign-in-form';
import { PlannedPageList } from '@/features/planned-pages/components/planned-page-list';
import { CONSOLE_PLANNED_PAGES } from '../planned-pages';

export function SignInRoute() {
  return (
    <>
      <title>Sign in · Operator console</title>
      <HomeLayout
        heading="Operator console"
        intro="Review partner applications, decide on their documents, and keep an auditable record of every decision."
        primary={
          <SignInForm
            title="Sign in"
            description="Use your operator account. A one-time code from your authenticator app will be asked next."
          />
        }
        secondary={<PlannedPageList pages={CONSOLE_PLANNED_PAGES} />}
      />
    </>
  );
}
