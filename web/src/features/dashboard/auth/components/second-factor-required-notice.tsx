import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from 'react-aria-components';
import { useLocation } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { isSecondFactorRequired } from '@/lib/api/api-error';
import './second-factor-required-notice.css';

/** Where the user turns their own factor on: Settings → Users, the "Your second factor" card. */
export const SECOND_FACTOR_SETTINGS = '/settings/users#second-factor';

/**
 * Once for every signed-in page: when any API call answers 403 SECOND_FACTOR_REQUIRED (a live money
 * action, or anything under the `everyone` policy, from a session made without a factor), a notice
 * with the link to turn the factor on and the reminder to sign in again. The failing page or dialog
 * shows the same words in its own error (errorMessage); this adds the way there. It watches the
 * query client's caches, so no page reports it.
 */
export function SecondFactorRequiredNotice() {
  const queryClient = useQueryClient();
  const [asked, setAsked] = useState(false);
  const { pathname } = useLocation();

  useEffect(() => {
    const unsubscribeQueries = queryClient.getQueryCache().subscribe((event) => {
      if (
        event.type === 'updated' &&
        event.action.type === 'error' &&
        isSecondFactorRequired(event.action.error)
      ) {
        setAsked(true);
      }
    });
    const unsubscribeMutations = queryClient.getMutationCache().subscribe((event) => {
      if (
        event.type === 'updated' &&
        event.action.type === 'error' &&
        isSecondFactorRequired(event.action.error)
      ) {
        setAsked(true);
      }
    });
    return () => {
      unsubscribeQueries();
      unsubscribeMutations();
    };
  }, [queryClient]);

  // Followed: the card it links to says the rest (and the notice comes back if asked again).
  const onSettings = pathname === '/settings/users';
  useEffect(() => {
    if (onSettings) setAsked(false);
  }, [onSettings]);

  if (!asked || onSettings) return null;
  return (
    <Alert
      tone="warning"
      className="second-factor-required"
      title="This needs a sign-in with a second factor."
    >
      <p>
        Your business requires a second factor for this.{' '}
        <Link href={SECOND_FACTOR_SETTINGS}>Turn on your second factor in Settings → Users</Link>, then sign
        out and sign in again with its code.
      </p>
      <Button variant="secondary" size="small" onPress={() => setAsked(false)}>
        Dismiss
      </Button>
    </Alert>
  );
}
