import type { QueryClient } from '@tanstack/react-query';
import { setPartnerCsrfToken } from './api/partner-session';
import type { PartnerSession } from './api/partner-types';
import { partnerKeys, partnerSessionKey } from './partner-query-keys';

/**
 * What the dashboard knows of its session: the signed-in partner's, or none; `ended` when there was
 * one and it ran out (2 hours, logged out elsewhere, password reset), `signedOut` when the partner
 * signed out here, so sign-in can say which.
 */
export interface PartnerSessionState {
  session: PartnerSession | null;
  ended: boolean;
  signedOut?: boolean;
}

/** The session is gone (signed out, or ended): nothing read with it stays in memory. */
export function forgetPartnerSession(queryClient: QueryClient, why: 'ended' | 'signed-out'): void {
  setPartnerCsrfToken(null);
  queryClient.removeQueries({ queryKey: partnerKeys.all });
  queryClient.setQueryData<PartnerSessionState>(partnerSessionKey, {
    session: null,
    ended: why === 'ended',
    signedOut: why === 'signed-out',
  });
}
