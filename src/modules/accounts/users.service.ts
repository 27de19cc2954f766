import type { Kysely, Transaction } from 'kysely';
import { actorOf, type RequestMeta, userActor } from '../../platform/audit/audit.repository.js';
import type { AuditedWrite, WriteContext } from '../../platform/audit/audited-write.js';
import type { SessionCredential } from '../../platform/auth/credentials.js';
import { newPasswordErrors } from '../../platform/auth/password-rules.js';
import { permissionsOf, type UserRole } from '../../platform/auth/roles.js';
import { type Clock, toIso } from '../../platform/clock.js';
import { hashPassword } from '../../platform/crypto/passwords.js';
import { newId, randomToken, sha256 } from '../../platform/crypto/tokens.js';
import type { Database } from '../../platform/db/schema.js';
import { AppError, validationError } from '../../platform/errors/errors.js';
import { extend } from '../../platform/objects.js';
import { deleteSessionsOfUser } from './accounts.repository.js';
import type { AccountsService } from './accounts.service.js';
import * as repo from './users.repository.js';

/** An invitation link works this long (docs/decisions.md, "Dashboard users and roles"). */
export const INVITATION_TTL_MS = 72 * 60 * 60 * 1000;

export interface UsersDeps {
  db: Kysely<Database>;
  write: AuditedWrite;
  clock: Clock;
  /** Sends the invitation e-mail in the invitation's transaction (notifications.userInvited). */
  sendInvitation(
    trx: Kysely<Database>,
    invitation: {
      to: string;
      businessName: string;
      inviterName: string;
      role: string;
      token: string;
      expiresAt: number;
    },
    now: number,
  ): Promise<void>;
  wakeMail(): void;
  openSession: AccountsService['openSession'];
}

export type UsersService = ReturnType<typeof createUsersService>;

const notAUser = () => new AppError('NOT_FOUND', { message: 'No such user in your business.' });
const notAnInvitation = () => new AppError('NOT_FOUND', { message: 'No such invitation in your business.' });
const invalidLink = () =>
  new AppError('NOT_FOUND', {
    message: 'This invitation link is not valid: it was used, replaced or revoked, or never existed.',
  });
const adminAndOwner = () =>
  new AppError('FORBIDDEN', {
    message: 'An admin cannot invite, make, change or remove an owner: ask an owner.',
  });

function userView(row: repo.UserWithInviter, callerId: string) {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    is_you: row.id === callerId,
    created_at: toIso(row.created_at),
    last_login_at: row.last_login_at === null ? null : toIso(row.last_login_at),
    invited_by:
      row.created_by_user_id === null ? null : { id: row.created_by_user_id, name: row.inviter_name ?? '' },
  };
}

function invitationStatus(row: repo.InvitationRow, now: number) {
  if (row.accepted_at !== null) return 'accepted' as const;
  if (row.revoked_at !== null) return 'revoked' as const;
  return row.expires_at <= now ? ('expired' as const) : ('pending' as const);
}

function invitationView(row: repo.InvitationWithInviter, now: number) {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    status: invitationStatus(row, now),
    expires_at: toIso(row.expires_at),
    created_at: toIso(row.created_at),
    invited_by: { id: row.invited_by_user_id, name: row.inviter_name ?? '' },
  };
}

/**
 * A business's dashboard users and their invitations (docs/decisions.md, "Dashboard users and
 * roles"). What a role may call is checked by the auth hook (route access); the rules about owners
 * are checked here, each in the conditional statement that makes the change.
 */
export function createUsersService({ db, write, clock, sendInvitation, wakeMail, openSession }: UsersDeps) {
  const byAdmin = (session: SessionCredential) => session.role !== 'owner';

  async function list(session: SessionCredential) {
    const rows = await repo.listUsers(db, session.partnerId);
    return rows.map((row) => userView(row, session.userId));
  }

  async function me(session: SessionCredential) {
    const row = await repo.findUser(db, session.partnerId, session.userId);
    if (!row) throw notAUser();
    return extend(userView(row, session.userId), {
      permissions: permissionsOf(row.role, session.environment),
    });
  }

  /** Why a conditional change of a user matched nothing (read in the change's transaction). */
  async function refusalOf(trx: Transaction<Database>, session: SessionCredential, userId: string) {
    const target = await repo.findUser(trx, session.partnerId, userId);
    if (!target || target.removed_at !== null) return notAUser();
    if (target.role === 'owner' && byAdmin(session)) return adminAndOwner();
    return new AppError('LAST_OWNER');
  }

  async function changeRole(session: SessionCredential, userId: string, role: UserRole, meta: RequestMeta) {
    if (role === 'owner' && byAdmin(session)) throw adminAndOwner();
    if (userId === session.userId && session.role !== 'owner') {
      throw new AppError('FORBIDDEN', { message: 'Only an owner may change their own role.' });
    }
    return write({ actor: actorOf(session), meta }, async ({ trx, now, audit }) => {
      await repo.lockUsersOf(trx, session.partnerId);
      const before = await repo.findUser(trx, session.partnerId, userId);
      const target = { partnerId: session.partnerId, userId };
      if (!(await repo.changeRole(trx, target, role, byAdmin(session), now))) {
        throw await refusalOf(trx, session, userId);
      }
      audit({
        action: 'user.role_changed',
        targetType: 'user',
        targetId: userId,
        metadata: { from: before?.role, to: role },
      });
      return userView((await repo.findUser(trx, session.partnerId, userId))!, session.userId);
    });
  }

  /** Removes a user: their sessions end in the same transaction; their API keys keep working. */
  async function remove(session: SessionCredential, userId: string, meta: RequestMeta) {
    return write({ actor: actorOf(session), meta }, async ({ trx, now, audit }) => {
      await repo.lockUsersOf(trx, session.partnerId);
      if (!(await repo.removeUser(trx, { partnerId: session.partnerId, userId }, byAdmin(session), now))) {
        throw await refusalOf(trx, session, userId);
      }
      const sessions = await deleteSessionsOfUser(trx, userId);
      const removed = (await repo.findUser(trx, session.partnerId, userId))!;
      audit({
        action: 'user.removed',
        targetType: 'user',
        targetId: userId,
        metadata: { email: removed.email, role: removed.role, sessions_revoked: sessions },
      });
      return userView(removed, session.userId);
    });
  }

  async function listInvitations(session: SessionCredential) {
    const now = clock.now();
    const rows = await repo.listPendingInvitations(db, session.partnerId, now);
    return rows.map((row) => invitationView(row, now));
  }

  /** A new token for the invitation, e-mailed in the caller's transaction; only its hash is stored. */
  async function mailNewToken(
    context: WriteContext,
    session: SessionCredential,
    invitation: { email: string; role: UserRole },
  ) {
    const token = randomToken();
    const expiresAt = context.now + INVITATION_TTL_MS;
    await sendInvitation(
      context.trx,
      {
        to: invitation.email,
        businessName: session.businessName,
        inviterName: session.userName,
        role: invitation.role,
        token,
        expiresAt,
      },
      context.now,
    );
    return { tokenHash: sha256(token), expiresAt };
  }

  async function invite(
    session: SessionCredential,
    input: { email: string; role: UserRole },
    meta: RequestMeta,
  ) {
    if (input.role === 'owner' && byAdmin(session)) throw adminAndOwner();
    if (await repo.findUserByEmail(db, input.email)) throw new AppError('USER_EXISTS');
    // The write's result is the answer (an Idempotency-Key's replay stores it with the change).
    const view = await write(
      // Two invitations of one address racing: the partial unique index refuses the second, which
      // then runs again and replaces the first.
      { actor: actorOf(session), meta, onUniqueViolation: () => undefined, attempts: 3 },
      async (context) => {
        const { trx, now, audit } = context;
        await repo.revokeOpenInvitation(trx, session.partnerId, input.email, now);
        const { tokenHash, expiresAt } = await mailNewToken(context, session, input);
        const invitationId = newId();
        await repo.insertInvitation(trx, {
          id: invitationId,
          partner_id: session.partnerId,
          email: input.email,
          role: input.role,
          token_hash: tokenHash,
          invited_by_user_id: session.userId,
          expires_at: expiresAt,
          accepted_at: null,
          accepted_user_id: null,
          revoked_at: null,
          created_at: now,
        });
        audit({
          action: 'user.invited',
          targetType: 'user_invitation',
          targetId: invitationId,
          metadata: { email: input.email, role: input.role },
        });
        const row = await repo.findInvitation(trx, session.partnerId, invitationId);
        return invitationView(row!, now);
      },
    );
    wakeMail();
    return view;
  }

  async function invitationOf(session: SessionCredential, id: string) {
    const row = await repo.findInvitation(db, session.partnerId, id);
    if (!row) throw notAnInvitation();
    return invitationView(row, clock.now());
  }

  /** Refuses an admin's change of an invitation to become owner. */
  async function assertMayTouch(session: SessionCredential, id: string) {
    const row = await repo.findInvitation(db, session.partnerId, id);
    if (!row) throw notAnInvitation();
    if (row.role === 'owner' && byAdmin(session)) throw adminAndOwner();
    return row;
  }

  async function resend(session: SessionCredential, id: string, meta: RequestMeta) {
    const row = await assertMayTouch(session, id);
    const view = await write({ actor: actorOf(session), meta }, async (context) => {
      const { tokenHash, expiresAt } = await mailNewToken(context, session, row);
      const target = { partnerId: session.partnerId, id };
      if (!(await repo.renewInvitation(context.trx, target, tokenHash, expiresAt, context.now))) {
        throw new AppError('INVITATION_NOT_PENDING');
      }
      context.audit({
        action: 'user.invitation_resent',
        targetType: 'user_invitation',
        targetId: id,
        metadata: { email: row.email, role: row.role },
      });
      const renewed = await repo.findInvitation(context.trx, session.partnerId, id);
      return invitationView(renewed!, context.now);
    });
    wakeMail();
    return view;
  }

  /** Revoking twice answers the revoked invitation; an accepted one is not pending. */
  async function revoke(session: SessionCredential, id: string, meta: RequestMeta) {
    const row = await assertMayTouch(session, id);
    await write({ actor: actorOf(session), meta }, async ({ trx, now, audit }) => {
      if (await repo.revokeInvitation(trx, { partnerId: session.partnerId, id }, now)) {
        audit({
          action: 'user.invitation_revoked',
          targetType: 'user_invitation',
          targetId: id,
          metadata: { email: row.email, role: row.role },
        });
      } else if (row.accepted_at !== null) {
        throw new AppError('INVITATION_NOT_PENDING');
      }
    });
    return invitationOf(session, id);
  }

  /** The invitation of a link, pending and not expired, or the answer that says why not. */
  async function openInvitation(token: string) {
    const row = await repo.findInvitationByTokenHash(db, sha256(token));
    if (!row || row.accepted_at !== null || row.revoked_at !== null) throw invalidLink();
    if (row.expires_at <= clock.now()) throw new AppError('INVITATION_EXPIRED');
    return row;
  }

  async function preview(token: string) {
    const row = await openInvitation(token);
    return {
      business_name: row.business_name,
      email: row.email,
      role: row.role,
      expires_at: toIso(row.expires_at),
    };
  }

  /**
   * Accepts an invitation: the user is made and signed in (the login's session, as login answers).
   * The invitation is taken by one conditional UPDATE, so of racing accepts of a link one wins and
   * the others answer 404.
   */
  async function accept(
    input: { token: string; name: string; password: string; password_confirmation: string },
    meta: RequestMeta,
  ) {
    const invitation = await openInvitation(input.token);
    const errors = newPasswordErrors(input, invitation.email);
    if (Object.keys(errors).length > 0) throw validationError(errors);
    if (await repo.findUserByEmail(db, invitation.email)) throw new AppError('USER_EXISTS');
    const passwordHash = await hashPassword(input.password);
    const userId = newId();
    return write(
      {
        actor: userActor(invitation.partner_id, userId),
        meta,
        onUniqueViolation: () => new AppError('USER_EXISTS'),
      },
      async ({ trx, now, audit }) => {
        const accepted = await repo.acceptInvitation(trx, sha256(input.token), userId, now);
        if (!accepted)
          throw invitation.expires_at <= now ? new AppError('INVITATION_EXPIRED') : invalidLink();
        await repo.insertUser(trx, {
          id: userId,
          partner_id: accepted.partner_id,
          email: accepted.email,
          name: input.name,
          password_hash: passwordHash,
          role: accepted.role,
          created_by_user_id: accepted.invited_by_user_id,
          created_at: now,
          updated_at: now,
          last_login_at: null,
          removed_at: null,
        });
        audit({
          action: 'user.invitation_accepted',
          targetType: 'user',
          targetId: userId,
          metadata: { invitation_id: accepted.id, email: accepted.email, role: accepted.role },
        });
        return openSession(trx, audit, { id: userId, partnerId: accepted.partner_id }, now);
      },
    );
  }

  return { list, me, changeRole, remove, listInvitations, invite, resend, revoke, preview, accept };
}
