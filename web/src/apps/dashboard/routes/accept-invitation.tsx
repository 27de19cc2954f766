import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { AcceptInvitationPage } from '@/features/dashboard/auth/components/accept-invitation-page';

/** The token travels in the link's fragment (#token=…), which browsers never send to a server. */
const tokenFrom = (hash: string) => new URLSearchParams(hash.replace(/^#/, '')).get('token');

export function AcceptInvitationRoute() {
  const navigate = useNavigate();
  // Read once; then out of the address bar (and this history entry), so the secret is neither left
  // on screen nor kept in the browser's history. It lives on in this page's memory only.
  const [token] = useState(() => tokenFrom(window.location.hash));
  useEffect(() => {
    if (window.location.hash) {
      window.history.replaceState(
        window.history.state,
        '',
        `${window.location.pathname}${window.location.search}`,
      );
    }
  }, []);
  return <AcceptInvitationPage token={token} onAccepted={() => navigate('/overview', { replace: true })} />;
}
