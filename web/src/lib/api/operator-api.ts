import createClient from 'openapi-fetch';
import { adminKeys, operatorSessionKey } from '../operator-query-keys';
import type { paths } from './operator.generated';
import type { OperatorSession } from './operator-types';
import { createSessionChannel } from './session-channel';

/** The console's session: a wrong password or code at sign-in answers 401 without one ending. */
export const operatorSession = createSessionChannel<OperatorSession>({
  sessionKey: operatorSessionKey,
  dataKey: adminKeys.all,
  credentialPaths: /\/admin\/session\/(password|second-factor)$/,
});

/**
 * The operator's API (openapi/operator.json), typed. Paths carry their full prefix (the document's
 * server is `/`), so requests go to the origin that served the page: the CSP's connect-src 'self'.
 */
export const operatorApi = createClient<paths>({ credentials: 'same-origin' });
operatorApi.use(operatorSession.middleware);
