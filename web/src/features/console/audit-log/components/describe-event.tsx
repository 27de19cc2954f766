import type { ReactNode } from 'react';
import { UserText } from '@/components/ui/user-text';
import type { AuditEvent } from '@/lib/api/operator-types';
import { documentTypeLabel, humanize, ONBOARDING_STATUS_LABELS } from '@/lib/onboarding-labels';

const ACTION_LABELS: Record<string, string> = {
  'account.registered': 'Registered',
  'account.verified': 'Verified e-mail',
  'account.login': 'Partner signed in',
  'account.login_failed': 'Partner sign-in failed',
  'account.logout': 'Partner signed out',
  'onboarding.profile_updated': 'Updated business profile',
  'onboarding.representative_added': 'Added compliance representative',
  'onboarding.representative_updated': 'Updated compliance representative',
  'onboarding.document_uploaded': 'Uploaded a document',
  'onboarding.document_file_deleted': "Replaced an unreviewed document's file (deleted)",
  'onboarding.status_changed': 'Onboarding status changed',
  'kyc.checked': 'KYC check',
  'document.approved': 'Approved a document',
  'document.rejected': 'Rejected a document',
  'session.environment_switched': 'Switched environment',
  'api_key.created': 'Created an API key',
  'api_key.revoked': 'Revoked an API key',
  'user.invited': 'Invited a dashboard user',
  'user.invitation_resent': 'Sent an invitation again',
  'user.invitation_revoked': 'Revoked an invitation',
  'user.invitation_accepted': 'Accepted an invitation',
  'user.role_changed': "Changed a user's role",
  'user.removed': 'Removed a dashboard user',
  'operator.invited': 'Invited an operator',
  'operator.created': 'Operator set up',
  'operator.signed_in': 'Operator signed in',
  'operator.signed_out': 'Operator signed out',
  'operator.sign_in_failed': 'Operator sign-in failed',
  'operator.second_factor_failed': 'Wrong second factor',
  'operator.second_factor_reset': 'Reset a second factor',
  'operator.second_factor_enrolled': 'New second factor set up',
  'operator.deactivated': 'Deactivated an operator',
  'partner.assigned': 'Assigned the review',
  'partner.unassigned': 'Unassigned the review',
  'proposal.created': 'Proposed a decision (four eyes)',
  'proposal.confirmed': 'Confirmed a proposed decision',
  'proposal.declined': 'Declined a proposed decision',
  'proposal.withdrawn': 'Withdrew a proposed decision',
  'proposal.voided': 'A proposed decision became void',
};

export const actionLabel = (action: string): string => ACTION_LABELS[action] ?? humanize(action);

/** Who acted, as a person reads it: an operator's or the partner's name where the API gives one. */
export function actorLabel(actor: AuditEvent['actor']): string {
  switch (actor.type) {
    case 'operator':
      return actor.name ?? actor.email ?? `Operator ${actor.id ?? ''}`.trim();
    case 'api_key':
      return 'Admin API key';
    case 'partner':
      return actor.name ?? 'Partner';
    case 'user':
      return actor.name ?? 'Partner user';
    case 'system':
      return 'System';
    case 'anonymous':
      return 'Not signed in';
  }
}

/** The line under the actor's name: an operator's e-mail, or which of a partner's credentials acted. */
export function actorDetail(actor: AuditEvent['actor']): string | null {
  if (actor.type === 'operator') return actor.name === null ? 'Operator' : (actor.email ?? 'Operator');
  if (actor.type === 'partner') return actor.id?.startsWith('api_key:') ? 'Partner, by API key' : 'Partner';
  if (actor.type === 'user') return "Partner's dashboard user";
  if (actor.type === 'system' && actor.id) return actor.id;
  return null;
}

const METADATA_LABELS: Record<string, string> = {
  bvn: 'BVN',
  email: 'E-mail',
  ip: 'IP',
  kyc: 'KYC',
  proposed_by_type: 'Proposed by',
};

/** Identifiers the event's target or partner already names, or internals a reviewer does not need. */
const skipped = (key: string) => key === 'source' || key === 'id' || key.endsWith('_id');

const statusLabel = (value: unknown) =>
  ONBOARDING_STATUS_LABELS[value as keyof typeof ONBOARDING_STATUS_LABELS] ?? String(value);

/** One phrase of an event's metadata; `key` tells it from the event's other phrases. */
export interface EventDetail {
  key: string;
  content: ReactNode;
}

/** The event's metadata as short phrases: "Under review → Active", "Reason: …". */
export function eventDetails(event: AuditEvent): EventDetail[] {
  const metadata = { ...(event.metadata ?? {}) };
  const details: EventDetail[] = [];
  if ('from' in metadata && 'to' in metadata) {
    details.push({
      key: 'status',
      content: `${statusLabel(metadata['from'])} → ${statusLabel(metadata['to'])}`,
    });
    delete metadata['from'];
    delete metadata['to'];
  }
  if (typeof metadata['document_type'] === 'string') {
    details.push({ key: 'document_type', content: documentTypeLabel(metadata['document_type']) });
    delete metadata['document_type'];
  }
  for (const [key, value] of Object.entries(metadata)) {
    if (value === null || value === undefined || typeof value === 'object' || skipped(key)) continue;
    const text = String(value);
    const label = METADATA_LABELS[key] ?? humanize(key);
    // Enum values (`wrong_password`) read as words; free text (reasons, e-mails) stays as written.
    details.push({
      key,
      content: /^[a-z]+(_[a-z]+)*$/.test(text) ? (
        `${label}: ${humanize(text).toLowerCase()}`
      ) : (
        <>
          {label}: <UserText>{text}</UserText>
        </>
      ),
    });
  }
  return details;
}

/** What the event acted on, unless it is the partner (named in its own column). */
export function targetLabel(event: AuditEvent): string | null {
  if (!event.target || event.target.type === 'partner') return null;
  return `${humanize(event.target.type)}${event.target.id ? ` ${event.target.id}` : ''}`;
}
