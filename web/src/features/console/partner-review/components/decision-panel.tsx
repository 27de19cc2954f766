import { ApiError } from '@baas/sdk';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { Form } from 'react-aria-components';
import { Alert, FieldErrorList } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { ModalDialog } from '@/components/ui/modal-dialog';
import { TextAreaField } from '@/components/ui/text-area-field';
import { UserText, visibleControls } from '@/components/ui/user-text';
import { errorMessage } from '@/lib/api/api-error';
import type {
  DecisionProposal,
  OnboardingStatus,
  PartnerRecord,
  ProposalAction,
} from '@/lib/api/operator-types';
import { formatDateTime } from '@/lib/format';
import { documentTypeLabel, requirementLabel } from '@/lib/onboarding-labels';
import { useClearErrorOnChange } from '@/lib/use-clear-error-on-change';
import {
  type ApplicationAction,
  type ProposalStep,
  useAssignment,
  useDecideApplication,
  useSettleProposal,
} from '../api/partner';
import { DecisionDialog } from './decision-dialog';

interface ActionInfo {
  label: string;
  title: string;
  description: (name: string) => string;
  confirm: string;
  tone: 'primary' | 'danger';
  variant: 'primary' | 'secondary' | 'danger';
  reason?: string;
  adminOnly: boolean;
  done: string;
}

const ACTIONS: Record<ApplicationAction, ActionInfo> = {
  approve: {
    label: 'Approve application',
    title: 'Approve the application?',
    description: (name) =>
      `${name} becomes active: it can switch to live and create live API keys. Every required document must be approved and the KYC check passed.`,
    confirm: 'Approve application',
    tone: 'primary',
    variant: 'primary',
    adminOnly: true,
    done: 'The application was approved. The partner can now go live.',
  },
  'request-changes': {
    label: 'Request changes',
    title: 'Request changes?',
    description: (name) => `The application goes back to ${name} to change and submit again.`,
    confirm: 'Request changes',
    tone: 'primary',
    variant: 'secondary',
    reason: 'What should the partner change?',
    adminOnly: false,
    done: 'Changes were requested. The partner sees your reason.',
  },
  reject: {
    label: 'Reject application',
    title: 'Reject the application?',
    description: (name) => `Rejection is final: ${name} cannot submit again.`,
    confirm: 'Reject application',
    tone: 'danger',
    variant: 'danger',
    reason: 'Reason for rejecting',
    adminOnly: true,
    done: 'The application was rejected.',
  },
  suspend: {
    label: 'Suspend partner',
    title: 'Suspend the partner?',
    description: (name) =>
      `${name} keeps the sandbox, but its live sessions and live API keys are refused until it is reinstated.`,
    confirm: 'Suspend partner',
    tone: 'danger',
    variant: 'danger',
    reason: 'Reason for suspending',
    adminOnly: true,
    done: 'The partner was suspended.',
  },
  reinstate: {
    label: 'Reinstate partner',
    title: 'Reinstate the partner?',
    description: (name) => `${name} becomes active again, and its live credentials work again.`,
    confirm: 'Reinstate partner',
    tone: 'primary',
    variant: 'primary',
    adminOnly: true,
    done: 'The partner was reinstated.',
  },
};

/** Four eyes: what a proposal of each decision is called, and what proposing it tells the proposer. */
const PROPOSALS: Record<ProposalAction, { noun: string; proposed: string }> = {
  approve: { noun: 'Approval', proposed: 'Approval proposed: another admin must confirm it.' },
  suspend: { noun: 'Suspension', proposed: 'Suspension proposed: another admin must confirm it.' },
  reinstate: { noun: 'Reinstatement', proposed: 'Reinstatement proposed: another admin must confirm it.' },
};

const isProposalAction = (action: ApplicationAction): action is ProposalAction => action in PROPOSALS;

const BY_STATUS: Record<OnboardingStatus, ApplicationAction[]> = {
  under_review: ['approve', 'request-changes', 'reject'],
  active: ['suspend'],
  suspended: ['reinstate'],
  in_progress: [],
  rejected: [],
};

const SITUATION: Record<OnboardingStatus, string> = {
  under_review:
    'The partner submitted the application. Decide each document, then approve the application, request changes or reject it.',
  in_progress: 'The partner is preparing the application. There is nothing to decide until it is submitted.',
  active: 'The partner is active. New documents it uploads wait here for a decision.',
  suspended: 'The partner is suspended: it keeps the sandbox, and its live credentials are refused.',
  rejected: 'The application was rejected. This decision is final.',
};

/**
 * What the partner still owes, what awaits the operator, and the decisions the operator may take
 * now (an admin's are not offered to a reviewer; the server refuses them anyway), each confirmed
 * in a dialog.
 */
export function DecisionPanel({
  partner,
  isAdmin,
  operatorId,
}: {
  partner: PartnerRecord;
  isAdmin: boolean;
  operatorId: string;
}) {
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const decide = useDecideApplication(partner.company_id);
  const reasonId = useId();
  // A refused decision describes the record it was refused on: it goes when the record changes.
  useClearErrorOnChange(decide, {
    status: partner.onboarding_status,
    documents: partner.documents.map((document) => [document.id, document.status]),
    requirements: partner.requirements,
  });
  const [open, setOpen] = useState<ApplicationAction | null>(null);
  const [done, setDone] = useState<{ action: ApplicationAction; proposed: boolean; count: number } | null>(
    null,
  );

  useEffect(() => {
    if (done) heading.current?.focus();
  }, [done]);

  const pending = partner.pending_proposal;
  // While a decision is proposed, it is confirmed or declined, not proposed again.
  const possible = BY_STATUS[partner.onboarding_status].filter(
    (action) => !(pending && isProposalAction(action)),
  );
  const offered = possible.filter((action) => isAdmin || !ACTIONS[action].adminOnly);
  const withheld = possible.length - offered.length;
  const { currently_due: due, pending_review: waiting, errors } = partner.requirements;
  const dialogError =
    decide.error instanceof ApiError && decide.error.errorCode === 'VALIDATION_FAILED' ? decide.error : null;
  const panelError = decide.error && !dialogError ? decide.error : null;
  const undecided = undecidedDocuments(partner);
  const approveBlocked = undecided.length > 0 && partner.onboarding_status === 'under_review';

  return (
    <Card labelledBy={headingId} className="partner-section decision-panel">
      <h2 id={headingId} ref={heading} tabIndex={-1}>
        Review and decision
      </h2>
      <p className="decision-panel__situation">
        {partner.onboarding_status === 'under_review' && !isAdmin
          ? 'The partner submitted the application. Decide each document, and request changes if something must change; an admin approves or rejects the application.'
          : SITUATION[partner.onboarding_status]}
      </p>
      <AssignmentLine partner={partner} operatorId={operatorId} isAdmin={isAdmin} />
      {pending ? <ProposalLine proposal={pending} operatorId={operatorId} isAdmin={isAdmin} /> : null}
      {partner.review_notes ? (
        <p className="decision-panel__notes">
          <span className="decision-panel__notes-label">Last review notes:</span>{' '}
          <UserText>{partner.review_notes}</UserText>
        </p>
      ) : null}
      {partner.internal_note ? (
        <p className="decision-panel__notes">
          <span className="decision-panel__notes-label">Internal note (operators only):</span>{' '}
          <UserText>{partner.internal_note}</UserText>
        </p>
      ) : null}
      <div className="requirements">
        <RequirementList title="Waiting for your review" items={waiting} empty="Nothing." />
        <RequirementList title="Still due from the partner" items={due} empty="Nothing." />
        {errors.length > 0 ? (
          <div className="requirements__group">
            <h3 className="requirements__title">Problems to fix</h3>
            <ul className="requirements__list">
              {errors.map((error) => (
                <li key={`${error.requirement}:${error.reason}`}>
                  <strong>{requirementLabel(error.requirement)}</strong>: <UserText>{error.reason}</UserText>
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </div>
      {done && !panelError ? (
        <Alert tone="success" className="decision-panel__result">
          <p>
            {done.proposed && isProposalAction(done.action)
              ? PROPOSALS[done.action].proposed
              : ACTIONS[done.action].done}
          </p>
        </Alert>
      ) : null}
      {offered.length > 0 ? (
        <div className="decision-panel__actions">
          {offered.map((action) => (
            <Button
              key={action}
              variant={ACTIONS[action].variant}
              aria-haspopup="dialog"
              {...(action === 'approve' && approveBlocked
                ? { isDisabled: true, 'aria-describedby': reasonId }
                : {})}
              onPress={() => {
                decide.reset();
                setOpen(action);
              }}
            >
              {ACTIONS[action].label}…
            </Button>
          ))}
        </div>
      ) : null}
      {approveBlocked && offered.includes('approve') ? (
        <p className="decision-panel__blocked" id={reasonId}>
          Approving waits for your decision on {listOf(undecided.map(documentTypeLabel))}.
        </p>
      ) : null}
      {withheld > 0 ? (
        <p className="decision-panel__role-note muted">
          Approving, rejecting, suspending and reinstating a partner are for admins.
        </p>
      ) : null}
      {panelError ? (
        <Alert
          tone="error"
          title={
            open === null && decide.variables ? `${ACTIONS[decide.variables.action].label} failed` : undefined
          }
        >
          <p>{errorMessage(panelError)}</p>
          {panelError instanceof ApiError ? (
            <FieldErrorList errors={panelError.errors} label={requirementLabel} />
          ) : null}
        </Alert>
      ) : null}
      {possible.map((action) => (
        <DecisionDialog
          key={action}
          isOpen={open === action}
          onOpenChange={(isOpen) => setOpen(isOpen ? action : null)}
          title={ACTIONS[action].title}
          description={ACTIONS[action].description(visibleControls(partner.business_name))}
          confirmLabel={ACTIONS[action].confirm}
          tone={ACTIONS[action].tone}
          {...(ACTIONS[action].reason ? { reasonLabel: ACTIONS[action].reason } : {})}
          isPending={decide.isPending}
          error={dialogError}
          onConfirm={(reason, internalNote) =>
            decide.mutate(
              { action, ...(ACTIONS[action].reason ? { reason, internalNote } : {}) },
              {
                onSuccess: (result) => {
                  setOpen(null);
                  // Under four eyes the answer is the proposal (202), not the partner's record.
                  const proposed = typeof result === 'object' && result !== null && 'proposed_by' in result;
                  setDone({ action, proposed, count: (done?.count ?? 0) + 1 });
                },
                onError: (error) => {
                  if (!(error instanceof ApiError && error.errorCode === 'VALIDATION_FAILED')) setOpen(null);
                },
              },
            )
          }
        />
      ))}
    </Card>
  );
}

/**
 * Who works on this partner: claim it when nobody does, let go of one's own (an admin of anyone's);
 * a claim that lost a race is told who won (409 ALREADY_ASSIGNED).
 */
function AssignmentLine({
  partner,
  operatorId,
  isAdmin,
}: {
  partner: PartnerRecord;
  operatorId: string;
  isAdmin: boolean;
}) {
  const assignment = useAssignment(partner.company_id);
  const assignee = partner.assigned_to;
  const mine = assignee?.id === operatorId;
  return (
    <div className="decision-panel__assignment">
      <p>
        <span className="decision-panel__notes-label">Assigned to:</span>{' '}
        {assignee ? (
          <>
            <UserText>{assignee.name}</UserText>
            {mine ? ' (you)' : null}
          </>
        ) : (
          'nobody'
        )}
      </p>
      {!assignee || mine || isAdmin ? (
        <Button variant="secondary" isPending={assignment.isPending} onPress={() => assignment.mutate(!mine)}>
          {mine ? 'Let go' : assignee ? 'Take over' : 'Claim'}
        </Button>
      ) : null}
      {assignment.error ? (
        <Alert tone="error">
          <p>{errorMessage(assignment.error)}</p>
        </Alert>
      ) : null}
    </div>
  );
}

/**
 * Four eyes: the decision another admin proposed, with Confirm and Decline for other admins and
 * Withdraw for its proposer. A settlement that lost a race says what won (409 PROPOSAL_SETTLED).
 */
function ProposalLine({
  proposal,
  operatorId,
  isAdmin,
}: {
  proposal: DecisionProposal;
  operatorId: string;
  isAdmin: boolean;
}) {
  const settle = useSettleProposal();
  const mine = proposal.proposed_by.type === 'operator' && proposal.proposed_by.id === operatorId;
  const steps: ProposalStep[] = mine ? ['withdraw'] : isAdmin ? ['confirm', 'decline'] : [];
  const labels: Record<ProposalStep, string> = {
    confirm: 'Confirm',
    decline: 'Decline',
    withdraw: 'Withdraw',
  };
  const noun = PROPOSALS[proposal.action].noun;
  const [declining, setDeclining] = useState(false);
  const submitDecline = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const reason = String(new FormData(event.currentTarget).get('decline_reason') ?? '').trim();
    settle.mutate(
      { proposalId: proposal.id, step: 'decline', ...(reason ? { reason } : {}) },
      { onSettled: () => setDeclining(false) },
    );
  };
  return (
    <section className="decision-panel__proposal" aria-label={`${noun} awaiting a second admin`}>
      <ModalDialog
        title={`Decline the ${noun.toLowerCase()}?`}
        isOpen={declining}
        onOpenChange={setDeclining}
        role="alertdialog"
      >
        {(close) => (
          <Form className="dialog__body" onSubmit={submitDecline}>
            <p>
              Nothing changes for the partner; the proposal is closed and the audit trail says who declined
              it.
            </p>
            <TextAreaField
              name="decline_reason"
              label="Why (optional)"
              description="For the proposer and the audit trail. The partner never sees it."
              maxLength={1000}
              autoFocus
            />
            <div className="dialog__actions">
              <Button variant="secondary" onPress={close} isDisabled={settle.isPending}>
                Cancel
              </Button>
              <Button type="submit" variant="primary" isPending={settle.isPending}>
                {`Decline ${noun.toLowerCase()}`}
              </Button>
            </div>
          </Form>
        )}
      </ModalDialog>
      <p>
        <strong>{noun} proposed</strong> by{' '}
        {proposal.proposed_by.name ? <UserText>{proposal.proposed_by.name}</UserText> : 'the admin API key'}
        {mine ? ' (you)' : null} at {formatDateTime(proposal.created_at)}.{' '}
        {mine
          ? 'Another admin must confirm it.'
          : isAdmin
            ? 'It takes effect when another admin confirms it.'
            : 'An admin confirms or declines it.'}
      </p>
      {proposal.reason ? (
        <p>
          <span className="decision-panel__notes-label">Reason for the partner:</span>{' '}
          <UserText>{proposal.reason}</UserText>
        </p>
      ) : null}
      {proposal.internal_note ? (
        <p>
          <span className="decision-panel__notes-label">Internal note:</span>{' '}
          <UserText>{proposal.internal_note}</UserText>
        </p>
      ) : null}
      {steps.length > 0 ? (
        <div className="decision-panel__actions">
          {steps.map((step) => (
            <Button
              key={step}
              variant={
                step === 'confirm' ? (proposal.action === 'suspend' ? 'danger' : 'primary') : 'secondary'
              }
              isPending={settle.isPending && settle.variables?.step === step}
              isDisabled={settle.isPending}
              onPress={() =>
                step === 'decline' ? setDeclining(true) : settle.mutate({ proposalId: proposal.id, step })
              }
            >
              {`${labels[step]} ${noun.toLowerCase()}`}
            </Button>
          ))}
        </div>
      ) : null}
      {settle.error ? (
        <Alert tone="error">
          <p>{errorMessage(settle.error)}</p>
        </Alert>
      ) : null}
    </section>
  );
}

/** The checklist's current documents nobody has decided yet: approving waits for them. */
function undecidedDocuments(partner: PartnerRecord): string[] {
  const checklist = Object.keys(partner.document_checklist);
  return partner.documents
    .filter(
      (document) =>
        document.current &&
        document.status === 'pending_review' &&
        checklist.includes(document.document_type),
    )
    .map((document) => document.document_type);
}

/** "A", "A and B", "A, B and C". */
function listOf(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

function RequirementList({ title, items, empty }: { title: string; items: string[]; empty: string }) {
  return (
    <div className="requirements__group">
      <h3 className="requirements__title">{title}</h3>
      {items.length > 0 ? (
        <ul className="requirements__list">
          {items.map((item) => (
            <li key={item}>{requirementLabel(item)}</li>
          ))}
        </ul>
      ) : (
        <p className="muted requirements__empty">{empty}</p>
      )}
    </div>
  );
}
