import { ApiError } from '@baas/sdk';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import {
  Cell,
  Column,
  Form,
  Label,
  Link,
  Radio,
  RadioGroup,
  Row,
  TableBody,
  TableHeader,
} from 'react-aria-components';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { DateTime } from '@/components/ui/date-time';
import { ModalDialog } from '@/components/ui/modal-dialog';
import { PageHeader } from '@/components/ui/page-header';
import { QueryView } from '@/components/ui/query-view';
import { CellLabel, DataTable } from '@/components/ui/table';
import { TextField } from '@/components/ui/text-field';
import { UserText, visibleControls } from '@/components/ui/user-text';
import { errorMessage } from '@/lib/api/api-error';
import type { Operator, OperatorRole, PendingInvitation } from '@/lib/api/operator-types';
import {
  invitationsQuery,
  operatorsQuery,
  useDeactivateOperator,
  useInviteOperator,
  useResetSecondFactor,
} from '../api/operators';
import { OneTimeLink } from './one-time-link';
import './operators.css';

const ROLES: Record<OperatorRole, { label: string; description: string }> = {
  reviewer: { label: 'Reviewer', description: 'Decides documents and requests changes.' },
  admin: {
    label: 'Admin',
    description: 'Also approves, rejects, suspends and reinstates partners, and manages operators.',
  },
};

/** The operators of the console and the invitations not yet used (admins only). */
export function OperatorsPage({ currentOperatorId }: { currentOperatorId: string }) {
  const operators = useQuery(operatorsQuery);
  const invitations = useQuery(invitationsQuery);
  const [action, setAction] = useState<{ kind: 'deactivate' | 'reset'; operator: Operator } | null>(null);

  return (
    <div className="operators-page">
      <title>Operators · Operator console</title>
      <PageHeader
        title="Operators"
        description="The people who can sign in to this console. New operators join through a one-time set-up link."
        aside={<InviteButton />}
      />
      <section aria-labelledby="operators-heading" className="operators-page__section">
        <h2 id="operators-heading">Operators</h2>
        <QueryView query={operators} loading="Loading operators…">
          {(data) => (
            <OperatorTable
              operators={data.items}
              currentOperatorId={currentOperatorId}
              onAction={(kind, operator) => setAction({ kind, operator })}
            />
          )}
        </QueryView>
      </section>
      <section aria-labelledby="invitations-heading" className="operators-page__section">
        <h2 id="invitations-heading">Pending invitations</h2>
        <QueryView query={invitations} loading="Loading invitations…">
          {(data) => <InvitationTable invitations={data.items} />}
        </QueryView>
      </section>
      {action?.kind === 'deactivate' ? (
        <DeactivateDialog operator={action.operator} onClose={() => setAction(null)} />
      ) : null}
      {action?.kind === 'reset' ? (
        <ResetDialog operator={action.operator} onClose={() => setAction(null)} />
      ) : null}
    </div>
  );
}

function OperatorTable({
  operators,
  currentOperatorId,
  onAction,
}: {
  operators: Operator[];
  currentOperatorId: string;
  onAction: (kind: 'deactivate' | 'reset', operator: Operator) => void;
}) {
  return (
    <DataTable aria-labelledby="operators-heading">
      <TableHeader>
        <Column isRowHeader>Operator</Column>
        <Column>Role</Column>
        <Column>Status</Column>
        <Column>Last sign-in</Column>
        <Column>Actions</Column>
      </TableHeader>
      <TableBody
        items={operators}
        renderEmptyState={() => <p className="data-table__empty">No operators.</p>}
      >
        {(operator) => {
          const self = operator.id === currentOperatorId;
          const active = operator.status === 'active';
          return (
            <Row id={operator.id} textValue={visibleControls(operator.name)}>
              <Cell>
                <span className="operators-page__name">
                  <UserText>{operator.name}</UserText>
                  {self ? <span className="muted"> (you)</span> : null}
                </span>
                <span className="data-table__secondary">
                  <UserText>{operator.email}</UserText>
                </span>
              </Cell>
              <Cell>
                <CellLabel>Role</CellLabel>
                {ROLES[operator.role].label}
              </Cell>
              <Cell>
                <CellLabel>Status</CellLabel>
                <span className="operators-page__badges">
                  {active ? <Badge tone="success">Active</Badge> : <Badge>Deactivated</Badge>}
                  {active && operator.second_factor === 'reset_pending' ? (
                    <Badge tone="warning">Second factor reset</Badge>
                  ) : null}
                  {active && operator.second_factor === 'locked' ? (
                    <Badge tone="danger">Second factor locked</Badge>
                  ) : null}
                </span>
              </Cell>
              <Cell>
                <CellLabel>Last sign-in</CellLabel>
                {operator.last_sign_in_at ? (
                  <DateTime value={operator.last_sign_in_at} variant="relative" />
                ) : (
                  <span className="muted">Never</span>
                )}
              </Cell>
              <Cell>
                <CellLabel>Actions</CellLabel>
                {active && !self ? (
                  <span className="operators-page__actions">
                    <Button
                      size="small"
                      variant="secondary"
                      aria-label={`Reset second factor of ${visibleControls(operator.name)}`}
                      aria-haspopup="dialog"
                      onPress={() => onAction('reset', operator)}
                    >
                      Reset second factor
                    </Button>
                    <Button
                      size="small"
                      variant="secondary"
                      aria-label={`Deactivate ${visibleControls(operator.name)}`}
                      aria-haspopup="dialog"
                      onPress={() => onAction('deactivate', operator)}
                    >
                      Deactivate
                    </Button>
                  </span>
                ) : self ? (
                  <Link className="operators-page__self" href="/account">
                    Your account
                  </Link>
                ) : (
                  <span className="muted">None</span>
                )}
              </Cell>
            </Row>
          );
        }}
      </TableBody>
    </DataTable>
  );
}

function InvitationTable({ invitations }: { invitations: PendingInvitation[] }) {
  return (
    <DataTable aria-labelledby="invitations-heading">
      <TableHeader>
        <Column isRowHeader>E-mail</Column>
        <Column>Role</Column>
        <Column>For</Column>
        <Column>Expires</Column>
      </TableHeader>
      <TableBody
        items={invitations}
        renderEmptyState={() => <p className="data-table__empty">No invitation is waiting to be used.</p>}
      >
        {(invitation) => (
          <Row id={invitation.id} textValue={visibleControls(invitation.email)}>
            <Cell>
              <UserText>{invitation.email}</UserText>
            </Cell>
            <Cell>
              <CellLabel>Role</CellLabel>
              {ROLES[invitation.role].label}
            </Cell>
            <Cell>
              <CellLabel>For</CellLabel>
              {invitation.purpose === 'invite' ? 'New operator' : 'New second factor'}
            </Cell>
            <Cell>
              <CellLabel>Expires</CellLabel>
              <DateTime value={invitation.expires_at} variant="relative" />
            </Cell>
          </Row>
        )}
      </TableBody>
    </DataTable>
  );
}

function InviteButton() {
  const [open, setOpen] = useState(false);
  const invite = useInviteOperator();
  const [role, setRole] = useState<OperatorRole>('reviewer');
  const fieldErrors =
    invite.error instanceof ApiError && invite.error.errorCode === 'VALIDATION_FAILED'
      ? invite.error.errors
      : {};
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    invite.mutate({ email: String(new FormData(event.currentTarget).get('email') ?? '').trim(), role });
  };
  return (
    <>
      <Button
        onPress={() => {
          invite.reset();
          setRole('reviewer');
          setOpen(true);
        }}
      >
        Invite an operator…
      </Button>
      <ModalDialog
        title={invite.data ? 'Invitation created' : 'Invite an operator'}
        isOpen={open}
        onOpenChange={setOpen}
      >
        {(close) =>
          invite.data ? (
            <div className="dialog__body">
              <OneTimeLink invitation={invite.data} />
              <div className="dialog__actions">
                <Button onPress={close}>Done</Button>
              </div>
            </div>
          ) : (
            <Form
              className="dialog__body"
              onSubmit={submit}
              validationErrors={Object.fromEntries(
                Object.entries(fieldErrors).map(([field, messages]) => [field, messages.join(', ')]),
              )}
            >
              <p>They get a one-time link to set a password and an authenticator app.</p>
              <TextField
                name="email"
                type="email"
                label="E-mail address"
                isRequired
                autoFocus
                errorMessage={({ validationDetails, validationErrors }) =>
                  validationErrors.length > 0
                    ? `This address ${validationErrors.join(', ')}.`
                    : validationDetails.valueMissing
                      ? 'Enter their e-mail address.'
                      : 'Enter an e-mail address like name@example.com.'
                }
              />
              <RadioGroup
                className="radio-group"
                value={role}
                onChange={(value) => setRole(value as OperatorRole)}
              >
                <Label className="field__label">Role</Label>
                {(Object.keys(ROLES) as OperatorRole[]).map((id) => (
                  <Radio key={id} value={id} className="radio">
                    <span className="radio__circle" aria-hidden="true" />
                    <span>
                      <span className="radio__label">{ROLES[id].label}</span>
                      <span className="radio__description">{ROLES[id].description}</span>
                    </span>
                  </Radio>
                ))}
              </RadioGroup>
              {invite.error && Object.keys(fieldErrors).length === 0 ? (
                <Alert tone="error">
                  <p>{errorMessage(invite.error)}</p>
                </Alert>
              ) : null}
              <div className="dialog__actions">
                <Button variant="secondary" onPress={close}>
                  Cancel
                </Button>
                <Button type="submit" isPending={invite.isPending}>
                  Create invitation
                </Button>
              </div>
            </Form>
          )
        }
      </ModalDialog>
    </>
  );
}

function DeactivateDialog({ operator, onClose }: { operator: Operator; onClose: () => void }) {
  const deactivate = useDeactivateOperator();
  return (
    <ModalDialog
      title={`Deactivate ${visibleControls(operator.name)}?`}
      role="alertdialog"
      isOpen
      onOpenChange={(isOpen) => {
        if (!isOpen) onClose();
      }}
    >
      {(close) => (
        <div className="dialog__body">
          <p>
            <UserText>{operator.name}</UserText> (<UserText>{operator.email}</UserText>) is signed out at once
            and can no longer sign in. Their past actions stay in the audit log.
          </p>
          {deactivate.error ? (
            <Alert tone="error">
              <p>{errorMessage(deactivate.error)}</p>
            </Alert>
          ) : null}
          <div className="dialog__actions">
            <Button variant="secondary" onPress={close}>
              Cancel
            </Button>
            <Button
              variant="danger"
              isPending={deactivate.isPending}
              onPress={() => deactivate.mutate(operator.id, { onSuccess: close })}
            >
              Deactivate
            </Button>
          </div>
        </div>
      )}
    </ModalDialog>
  );
}

function ResetDialog({ operator, onClose }: { operator: Operator; onClose: () => void }) {
  const reset = useResetSecondFactor();
  return (
    <ModalDialog
      title={
        reset.data ? 'Second factor reset' : `Reset the second factor of ${visibleControls(operator.name)}?`
      }
      role="alertdialog"
      isOpen
      onOpenChange={(isOpen) => {
        if (!isOpen) onClose();
      }}
    >
      {(close) =>
        reset.data ? (
          <div className="dialog__body">
            <OneTimeLink invitation={reset.data} />
            <div className="dialog__actions">
              <Button onPress={close}>Done</Button>
            </div>
          </div>
        ) : (
          <div className="dialog__body">
            {operator.second_factor === 'locked' && operator.second_factor_locked_at ? (
              <p>
                It locked <DateTime value={operator.second_factor_locked_at} /> after 20 wrong codes in a row.
                Check with {operator.name} that it was them before you reset it: someone else may know their
                password.
              </p>
            ) : null}
            <p>
              Their authenticator app and recovery codes stop working at once, and they are signed out. You
              get a one-time link for them to set up a new authenticator; they confirm it with their own
              password, so the link alone does not sign anyone in.
            </p>
            {reset.error ? (
              <Alert tone="error">
                <p>{errorMessage(reset.error)}</p>
              </Alert>
            ) : null}
            <div className="dialog__actions">
              <Button variant="secondary" onPress={close}>
                Cancel
              </Button>
              <Button variant="danger" isPending={reset.isPending} onPress={() => reset.mutate(operator.id)}>
                Reset second factor
              </Button>
            </div>
          </div>
        )
      }
    </ModalDialog>
  );
}
