import type { paths as PartnerPaths } from '@baas/sdk/generated';
import createClient from 'openapi-fetch';
import type { paths as OperatorPaths } from './operator.generated';
import { operatorSessionMiddleware } from './operator-session';

/*
 * Typed clients of the two published API documents. Paths carry their full prefix (the documents'
 * server is `/`), so requests go to the origin that served the page: the CSP's connect-src 'self'.
 */

/** The operator's API (openapi/operator.json): the console, with its session cookie and X-CSRF-Token. */
export const operatorApi = createClient<OperatorPaths>({ credentials: 'same-origin' });
operatorApi.use(operatorSessionMiddleware);

/** The partners' API (openapi/partner.json): the dashboard. */
export const partnerApi = createClient<PartnerPaths>({ credentials: 'same-origin' });
