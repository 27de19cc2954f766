import createClient from 'openapi-fetch';
import type { paths as OperatorPaths } from './operator.generated';
import type { paths as PartnerPaths } from './partner.generated';

/*
 * Typed clients of the two published API documents. Paths carry their full prefix (the documents'
 * server is `/`), so requests go to the origin that served the page: the CSP's connect-src 'self'.
 */

/** The operator's API (openapi/operator.json): the console. */
export const operatorApi = createClient<OperatorPaths>({ credentials: 'same-origin' });

/** The partners' API (openapi/partner.json): the dashboard. */
export const partnerApi = createClient<PartnerPaths>({ credentials: 'same-origin' });
