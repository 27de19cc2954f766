import type { Kysely } from 'kysely';
import { toIso } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { Environment } from '../../platform/environment.js';
import type { MailOutbox } from '../../platform/mail/outbox.js';
import { extend } from '../../platform/objects.js';
import { activeAdminEmails, activeOperatorEmails } from '../operators/operators.repository.js';
import type { OnboardingStatus } from '../partners/partners.schemas.js';
import * as repo from './notifications.repository.js';
import {
  invitationMail,
  type PartnerContext,
  type PartnerKind,
  type RenderedMail,
  SECURITY_RELEVANT,
  templates,
} from './notifications.templates.js';

/** A notification not sent by then is given up: news three days old is better read in the dashboard. */
const DISCARD_AFTER_MS = 3 * 24 * 60 * 60 * 1000;

export interface NotificationsDeps {
  mail: Pick<MailOutbox, 'enqueue'>;
  /** PUBLIC_URL (or its development default): links in e-mails start with it. */
  publicUrl: string;
}

export type Notifications = ReturnType<typeof createNotifications>;

/**
 * The e-mails that tell partners and operators about a change (docs/partner-guide.md, "E-mail
 * notifications"). Every function takes the transaction of the change it reports and writes one
 * outbox message per recipient in it: a change that rolls back sends nothing, one that commits is
 * always sent (the mail outbox retries). The outbox's worker sends them on its next poll.
 */
export function createNotifications({ mail, publicUrl }: NotificationsDeps) {
  const base = publicUrl.replace(/\/$/, '');
  const dashboardUrl = `${base}/dashboard`;
  const consoleUrl = `${base}/console`;

  async function send(
    trx: Kysely<Database>,
    recipients: readonly string[],
    rendered: RenderedMail,
    now: number,
  ) {
    for (const to of recipients) {
      await mail.enqueue(trx, { to, ...rendered }, now + DISCARD_AFTER_MS);
    }
  }

  /** Renders with the partner's context and sends to its recipients; a partner that is gone gets nothing. */
  async function toPartner(
    trx: Kysely<Database>,
    partnerId: number,
    kind: PartnerKind,
    now: number,
    build: (partner: PartnerContext) => RenderedMail,
  ): Promise<void> {
    const businessName = await repo.partnerName(trx, partnerId);
    const recipients = await repo.partnerRecipients(trx, partnerId, {
      name: kind,
      mutable: !SECURITY_RELEVANT.has(kind),
    });
    if (businessName === undefined || recipients.length === 0) return;
    await send(trx, recipients, build({ businessName, dashboardUrl }), now);
  }

  return {
    /**
     * A dashboard invitation to `to`, with its one-time link (`token` in the fragment); given up
     * when the link expires.
     */
    async userInvited(
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
    ): Promise<void> {
      const url = `${dashboardUrl}/accept-invitation#token=${invitation.token}`;
      const rendered = invitationMail(extend(invitation, { url, expiresAt: toIso(invitation.expiresAt) }));
      await mail.enqueue(trx, { to: invitation.to, ...rendered }, Math.max(invitation.expiresAt, now));
    },

    /**
     * An operator's decision moved onboarding_status. `reason` is what the partner is told
     * (review_notes); the decision's internal note is not taken, so no e-mail can carry it.
     */
    async onboardingDecided(
      trx: Kysely<Database>,
      partnerId: number,
      change: { from: OnboardingStatus; to: OnboardingStatus; reason: string | null },
      now: number,
    ): Promise<void> {
      const reason = change.reason ?? '';
      const kind: PartnerKind | undefined =
        change.to === 'in_progress'
          ? 'changes_requested'
          : change.to === 'rejected'
            ? 'application_rejected'
            : change.to === 'suspended'
              ? 'partner_suspended'
              : change.to === 'active'
                ? change.from === 'suspended'
                  ? 'partner_reinstated'
                  : 'application_approved'
                : undefined;
      if (kind === undefined) return;
      await toPartner(trx, partnerId, kind, now, (p) => {
        switch (kind) {
          case 'changes_requested':
          case 'application_rejected':
          case 'partner_suspended':
            return templates[kind](p, reason);
          case 'partner_reinstated':
          case 'application_approved':
            return templates[kind](p);
        }
      });
    },

    /** A reviewer rejected one of the partner's documents (approvals send nothing). */
    async documentRejected(
      trx: Kysely<Database>,
      partnerId: number,
      document: { type: string; reason: string | null },
      now: number,
    ): Promise<void> {
      await toPartner(trx, partnerId, 'document_rejected', now, (p) =>
        templates.document_rejected(p, document),
      );
    },

    /** The partner submitted its application: every active operator, reviewers and admins, is told. */
    async applicationSubmitted(
      trx: Kysely<Database>,
      partnerId: number,
      firstSubmission: boolean,
      now: number,
    ): Promise<void> {
      const businessName = await repo.partnerName(trx, partnerId);
      const operators = await activeOperatorEmails(trx);
      if (businessName === undefined) return;
      await send(
        trx,
        operators,
        templates.partner_submitted(consoleUrl, { id: partnerId, businessName, firstSubmission }),
        now,
      );
    },

    /**
     * An admin proposed a four-eyes decision: every other active admin is asked to confirm or decline
     * it (the proposer is not; the internal note stays in the console).
     */
    async proposalPending(
      trx: Kysely<Database>,
      proposal: {
        partnerId: number;
        action: 'approve' | 'suspend' | 'reinstate';
        proposedBy: { operatorId: string | null; name: string };
        reason: string | null;
      },
      now: number,
    ): Promise<void> {
      const businessName = await repo.partnerName(trx, proposal.partnerId);
      if (businessName === undefined) return;
      const admins = await activeAdminEmails(trx, proposal.proposedBy.operatorId);
      await send(
        trx,
        admins,
        templates.proposal_pending(consoleUrl, {
          action: proposal.action,
          companyId: proposal.partnerId,
          businessName,
          proposedBy: proposal.proposedBy.name,
          reason: proposal.reason,
        }),
        now,
      );
    },

    /** A transfer failed; only a live one is e-mailed (sandbox failures are tests the partner ran). */
    async transferFailed(
      trx: Kysely<Database>,
      transfer: {
        id: string;
        partnerId: number;
        environment: Environment;
        reference: string;
        amountKobo: number;
        beneficiary: string;
        reason: string;
      },
      now: number,
    ): Promise<void> {
      if (transfer.environment !== 'live') return;
      await toPartner(trx, transfer.partnerId, 'transfer_failed', now, (p) =>
        templates.transfer_failed(p, transfer),
      );
    },

    /** The endpoint's automatic deliveries have failed for an hour (the webhooks worker decides when: once an episode). */
    async webhookEndpointFailing(
      trx: Kysely<Database>,
      endpoint: {
        partnerId: number;
        environment: Environment;
        url: string;
        failingSince: number;
        lastError: string | null;
      },
      now: number,
    ): Promise<void> {
      await toPartner(trx, endpoint.partnerId, 'webhook_endpoint_failing', now, (p) =>
        templates.webhook_endpoint_failing(p, {
          environment: endpoint.environment,
          url: endpoint.url,
          failingSince: toIso(endpoint.failingSince),
          lastError: endpoint.lastError,
        }),
      );
    },
  };
}
