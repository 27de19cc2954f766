import { extend } from '../../platform/objects.js';
import { createConsoleSessions } from './console-sessions.js';
import { createEnrolmentService, type OperatorsDeps } from './enrolment.service.js';
import { createManagementService } from './management.service.js';
import * as repo from './operators.repository.js';
import { createSignInService } from './sign-in.service.js';

export { IDLE_MS, SESSION_MS } from './console-sessions.js';

export type OperatorsService = ReturnType<typeof createOperatorsService>;

/** The operators of the back office, by audience: enrolment, sign-in and own account, management by admins. */
export function createOperatorsService(deps: OperatorsDeps) {
  const withSessions = extend(deps, { sessions: createConsoleSessions(deps) });
  return Object.assign(
    createEnrolmentService(withSessions),
    createSignInService(withSessions),
    createManagementService(deps),
    {
      purgeExpired: () => repo.purgeExpired(deps.db, deps.clock.now()),
      /** The audit trail names operator actors by e-mail. */
      emailsOf: (ids: readonly string[]) => repo.operatorEmails(deps.db, ids),
      namesOf: (ids: readonly string[]) => repo.operatorNames(deps.db, ids),
      idsMatching: (text: string, limit: number) =>
        repo.operatorIdsMatching(deps.db, text.toLowerCase(), limit),
    },
  );
}
