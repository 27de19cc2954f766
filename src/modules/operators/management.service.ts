import { operatorActor, type RequestMeta } from '../../platform/audit/audit.repository.js';
import type { OperatorCredential } from '../../platform/auth/credentials.js';
import { toIso } from '../../platform/clock.js';
import { AppError } from '../../platform/errors/errors.js';
import { extend } from '../../platform/objects.js';
import { keysetCursor } from '../../platform/pagination/cursor.js';
import { creatorOf, type OperatorsDeps, requireAdmin } from './enrolment.service.js';
import { insertInvitation } from './invitations.js';
import * as repo from './operators.repository.js';

function secondFactorState(row: repo.OperatorRow) {
  if (row.totp_secret === null) return 'reset_pending' as const;
  return row.second_factor_locked_at === null ? ('enrolled' as const) : ('locked' as const);
}

function operatorView(row: repo.OperatorRow) {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    status: row.status,
    second_factor: secondFactorState(row),
    second_factor_locked_at: row.second_factor_locked_at === null ? null : toIso(row.second_factor_locked_at),
    last_sign_in_at: row.last_sign_in_at === null ? null : toIso(row.last_sign_in_at),
    created_at: toIso(row.created_at),
  };
}

/** Admins managing the operators: the list, deactivation, second-factor resets. */
export function createManagementService({ db, write, keys, publicUrl }: OperatorsDeps) {
  return {
    async list(operator: OperatorCredential, query: { limit: number; cursor?: string | undefined }) {
      requireAdmin(operator);
      const cursor = keysetCursor(keys.cursor, 'operators', 'operator', 'string');
      const rows = await repo.listOperators(db, cursor.decode(query.cursor), query.limit);
      const page = cursor.page(rows, query.limit, (row) => row.id);
      return { next_cursor: page.next_cursor, items: page.items.map(operatorView) };
    },

    /** Deactivated at once: every session of the operator ends, and it can no longer sign in. */
    async deactivate(operator: OperatorCredential, id: string, meta: RequestMeta) {
      requireAdmin(operator);
      if (operator.kind === 'operator' && operator.operatorId === id) {
        throw new AppError('FORBIDDEN', { message: 'You cannot deactivate yourself: ask another admin.' });
      }
      return write({ actor: operatorActor(null, operator), meta }, async ({ trx, now, audit }) => {
        const target = await repo.lockOperator(trx, id);
        if (!target) throw new AppError('NOT_FOUND');
        if (target.status === 'deactivated') return operatorView(target);
        await repo.updateOperator(trx, id, { status: 'deactivated', updated_at: now });
        const sessions = await repo.deleteSessionsOf(trx, id);
        await repo.revokeOpenInvitations(trx, { operatorId: id }, now);
        audit({
          action: 'operator.deactivated',
          targetType: 'operator',
          targetId: id,
          metadata: { email: target.email, sessions_revoked: sessions },
        });
        return operatorView(extend(target, { status: 'deactivated' as const, updated_at: now }));
      });
    },

    /**
     * Clears another operator's second factor (a lock included), recovery codes, sessions and pending
     * sign-ins, and gives the admin a one-time link through which the operator enrols a new factor
     * with its own password: the link alone signs nobody in. All in one audited transaction. An admin
     * cannot reset its own factor: another admin must, so a stolen session cannot swap the factor.
     */
    async resetSecondFactor(operator: OperatorCredential, id: string, meta: RequestMeta) {
      requireAdmin(operator);
      if (operator.kind === 'operator' && operator.operatorId === id) {
        throw new AppError('FORBIDDEN', {
          message: 'You cannot reset your own second factor: ask another admin.',
        });
      }
      return write({ actor: operatorActor(null, operator), meta }, async ({ trx, now, audit }) => {
        const target = await repo.lockOperator(trx, id);
        if (!target) throw new AppError('NOT_FOUND');
        if (target.status !== 'active')
          throw new AppError('FORBIDDEN', { message: 'This operator is deactivated.' });
        await repo.updateOperator(trx, id, {
          totp_secret: null,
          totp_last_step: null,
          second_factor_failures: 0,
          second_factor_locked_at: null,
          updated_at: now,
        });
        await repo.deleteRecoveryCodes(trx, id);
        const sessions = await repo.deleteSessionsOf(trx, id);
        await repo.deleteSignInsOf(trx, id);
        return insertInvitation(
          trx,
          audit,
          publicUrl,
          {
            email: target.email,
            role: target.role,
            purpose: 'reset_second_factor',
            operatorId: id,
            createdBy: creatorOf(operator),
            auditMetadata: { sessions_revoked: sessions },
          },
          now,
        );
      });
    },
  };
}
