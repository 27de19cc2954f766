import type { paths } from '@baas/sdk/generated';
import createClient from 'openapi-fetch';
import { partnerKeys, partnerSessionKey } from '../partner-query-keys';
import type { PartnerSession } from './partner-types';
import { createSessionChannel } from './session-channel';

/** The dashboard's session: the account pages before sign-in answer 401 about what was typed. */
export const partnerSession = createSessionChannel<PartnerSession>({
  sessionKey: partnerSessionKey,
  dataKey: partnerKeys.all,
  credentialPaths:
    /\/client\/onboarding\/(login|register|verify-otp|resend-otp|password\/forgot|password\/reset|invitations\/(preview|accept))$/,
});

/**
 * The partners' API (openapi/partner.json), typed. Paths carry their full prefix (the document's
 * server is `/`), so requests go to the origin that served the page: the CSP's connect-src 'self'.
 */
export const partnerApi = createClient<paths>({ credentials: 'same-origin' });
partnerApi.use(partnerSession.middleware);
