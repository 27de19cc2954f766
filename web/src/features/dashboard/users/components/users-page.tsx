import { ApiError } from '@baas/sdk';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { Cell, Column, Form, Row, TableBody, TableHeader } from 'react-aria-components';
import { RoleNote } from '@/components/role-note';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DateTime } from '@/components/ui/date-time';
import { ModalDialog } from '@/components/ui/modal-dialog';
import { QueryView } from '@/components/ui/query-view';
import { SectionHeader } from '@/components/ui/section-header';
import { SelectFormField } from '@/components/ui/select-form-field';
import { CellLabel, DataTable } from '@/components/ui/table';
import { TextField } from '@/components/ui/text-field';
import { UserText, visibleControls } from '@/components/ui/user-text';
import { errorMessage } from '@/lib/api/api-error';
import {
  type PartnerRole,
  ROLE_DESCRIPTIONS,
  ROLES,
  roleLabel,
  useAccess,
  useRole,
} from '@/lib/partner-roles';
import { fieldErrorSentences, validationMessage } from '@/lib/validation-message';
import { useResetSecondFactor } from '../api/second-factor';
import {
  type Invitation,
  invitationsQuery,
  type PartnerUser,
  useChangeRole,
  useInvite,
  useRemoveUser,
  useResendInvitation,
  useRevokeInvitation,
  usersQuery,
} from '../api/users';
import { NotificationsCard } from './notifications-card';
import { SecondFactorCard } from './second-factor-card';
import './users.css';

/** The roles the signed-in user may give: an admin may not make anyone an owner. */
const grantable = (me: PartnerRole | null): PartnerRole[] =>
  me === 'owner' ? ROLES : ROLES.filter((role) => role !== 'owner');

const roleOptions = (roles: PartnerRole[]) =>
  roles.map((role) => ({ id: role, label: roleLabel(role), description: ROLE_DESCRIPTIONS[role] }));

/** A user's name for a plain string (an accessible name, a notice), its controls shown. */
const nameOf = (user: PartnerUser) => visibleControls(user.name);

/**
 * Who signs in to the dashboard: the users with their roles, the pending invitations, and (for
 * owners and admins) inviting, changing a role and removing. Everyone else sees the lists only.
 */
export function UsersPage({ email }: { email: string }) {
  const users = useQuery(usersQuery);
  const invitations = useQuery(invitationsQuery);
  const canManage = useAccess('users').allowed;
  const me = useRole();
  const [notice, setNotice] = useState('');
  const [changing, setChanging] = useState<PartnerUser | null>(null);
  const [removing, setRemoving] = useState<PartnerUser | null>(null);
  const [resetting, setResetting] = useState<PartnerUser | null>(null);
  const [revoking, setRevoking] = useState<Invitation | null>(null);
  const resend = useResendInvitation();
  const invitationsId = useId();

  // An admin may not touch an owner; only an owner changes their own role.
  const mayChange = (user: PartnerUser) =>
    canManage && (me === 'owner' || user.role !== 'owner') && (!user.is_you || me === 'owner');
  const mayRemove = (user: PartnerUser) => canManage && (me === 'owner' || user.role !== 'owner');
  // Your own factor is turned off with your password (Your second factor), not reset.
  const mayReset = (user: PartnerUser) => mayRemove(user) && !user.is_you;

  return (
    <section className="users" aria-labelledby="users-heading">
      <title>Users · Partner dashboard</title>
      <SectionHeader
        id="users-heading"
        title="Users"
        description={
          <p>
            The people who sign in to this dashboard, each with their own e-mail address and password. Their
            role decides what they may do here; API keys are not people and keep full access to the API.
          </p>
        }
      />
      <RoleNote access="users" />
      <p role="status" className="users__notice">
        {notice}
      </p>
      {canManage ? (
        <InviteForm
          roles={grantable(me)}
          onInvited={(invitation) =>
            setNotice(
              `An invitation was sent to ${visibleControls(invitation.email)}. It works for 72 hours.`,
            )
          }
        />
      ) : null}
      <QueryView query={users} loading="Loading users…" errorTitle="The users could not be loaded.">
        {(data) => (
          <DataTable aria-label="Users">
            <TableHeader>
              <Column isRowHeader>Name</Column>
              <Column>Role</Column>
              <Column>Last sign-in</Column>
              <Column>Added</Column>
              <Column>
                <span className="visually-hidden">Actions</span>
              </Column>
            </TableHeader>
            <TableBody items={data}>
              {(user) => (
                <Row id={user.id} textValue={nameOf(user)}>
                  <Cell>
                    <span className="data-table__primary">
                      <UserText>{user.name}</UserText>
                      {user.is_you ? (
                        <>
                          {' '}
                          <Badge tone="info">You</Badge>
                        </>
                      ) : null}
                    </span>
                    <span className="data-table__secondary">
                      <UserText>{user.email}</UserText>
                    </span>
                  </Cell>
                  <Cell>
                    <CellLabel>Role</CellLabel>
                    <span>{roleLabel(user.role)}</span>
                  </Cell>
                  <Cell>
                    <CellLabel>Last sign-in</CellLabel>
                    {user.last_login_at ? (
                      <DateTime value={user.last_login_at} />
                    ) : (
                      <span className="muted">Never</span>
                    )}
                  </Cell>
                  <Cell>
                    <CellLabel>Added</CellLabel>
                    <DateTime value={user.created_at} />
                    {user.invited_by ? (
                      <span className="data-table__secondary">
                        Invited by <UserText>{user.invited_by.name}</UserText>
                      </span>
                    ) : null}
                  </Cell>
                  <Cell>
                    <div className="users__actions">
                      {mayChange(user) ? (
                        <Button
                          variant="secondary"
                          size="small"
                          aria-label={`Change role of ${nameOf(user)}`}
                          onPress={() => {
                            setNotice('');
                            setChanging(user);
                          }}
                        >
                          Change role
                        </Button>
                      ) : null}
                      {mayReset(user) ? (
                        <Button
                          variant="quiet"
                          size="small"
                          aria-label={`Reset second factor of ${nameOf(user)}`}
                          onPress={() => {
                            setNotice('');
                            setResetting(user);
                          }}
                        >
                          Reset second factor
                        </Button>
                      ) : null}
                      {mayRemove(user) ? (
                        <Button
                          variant="quiet"
                          size="small"
                          aria-label={`Remove ${nameOf(user)}`}
                          onPress={() => {
                            setNotice('');
                            setRemoving(user);
                          }}
                        >
                          Remove
                        </Button>
                      ) : null}
                    </div>
                  </Cell>
                </Row>
              )}
            </TableBody>
          </DataTable>
        )}
      </QueryView>

      <section aria-labelledby={invitationsId} className="users__invitations">
        <h3 id={invitationsId}>Pending invitations</h3>
        {resend.error ? (
          <Alert tone="error" title="The invitation was not sent again.">
            <p>{errorMessage(resend.error)}</p>
          </Alert>
        ) : null}
        <QueryView
          query={invitations}
          loading="Loading invitations…"
          errorTitle="The invitations could not be loaded."
        >
          {(data) => (
            <DataTable aria-label="Pending invitations">
              <TableHeader>
                <Column isRowHeader>E-mail address</Column>
                <Column>Role</Column>
                <Column>Expires</Column>
                <Column>Invited by</Column>
                <Column>
                  <span className="visually-hidden">Actions</span>
                </Column>
              </TableHeader>
              <TableBody
                items={data}
                renderEmptyState={() => <p className="data-table__empty">No pending invitations.</p>}
              >
                {(invitation) => (
                  <Row id={invitation.id} textValue={visibleControls(invitation.email)}>
                    <Cell>
                      <span className="data-table__primary">
                        <UserText>{invitation.email}</UserText>
                      </span>
                    </Cell>
                    <Cell>
                      <CellLabel>Role</CellLabel>
                      <span>{roleLabel(invitation.role)}</span>
                    </Cell>
                    <Cell>
                      <CellLabel>Expires</CellLabel>
                      <DateTime value={invitation.expires_at} />
                    </Cell>
                    <Cell>
                      <CellLabel>Invited by</CellLabel>
                      <UserText>{invitation.invited_by.name}</UserText>
                    </Cell>
                    <Cell>
                      {canManage ? (
                        <div className="users__actions">
                          <Button
                            variant="secondary"
                            size="small"
                            aria-label={`Resend the invitation to ${visibleControls(invitation.email)}`}
                            isPending={resend.isPending && resend.variables === invitation.id}
                            onPress={() => {
                              setNotice('');
                              resend.mutate(invitation.id, {
                                onSuccess: () =>
                                  setNotice(
                                    `The invitation was sent again to ${visibleControls(invitation.email)}; the previous link no longer works.`,
                                  ),
                              });
                            }}
                          >
                            Resend
                          </Button>
                          <Button
                            variant="quiet"
                            size="small"
                            aria-label={`Revoke the invitation to ${visibleControls(invitation.email)}`}
                            onPress={() => {
                              setNotice('');
                              setRevoking(invitation);
                            }}
                          >
                            Revoke
                          </Button>
                        </div>
                      ) : null}
                    </Cell>
                  </Row>
                )}
              </TableBody>
            </DataTable>
          )}
        </QueryView>
      </section>

      <ChangeRoleDialog
        key={changing?.id ?? 'none'}
        user={changing}
        roles={grantable(me)}
        onClose={() => setChanging(null)}
        onChanged={(user) => {
          setChanging(null);
          setNotice(`${nameOf(user)} is now ${roleLabel(user.role).toLowerCase()}.`);
        }}
      />
      <RemoveUserDialog
        user={removing}
        onClose={() => setRemoving(null)}
        onRemoved={(user) => {
          setRemoving(null);
          setNotice(`${nameOf(user)} was removed and signed out.`);
        }}
      />
      <ResetSecondFactorDialog
        user={resetting}
        onClose={() => setResetting(null)}
        onReset={(user) => {
          setResetting(null);
          setNotice(
            `The second factor of ${nameOf(user)} was reset: they sign in with their password alone.`,
          );
        }}
      />
      <RevokeInvitationDialog
        invitation={revoking}
        onClose={() => setRevoking(null)}
        onRevoked={(invitation) => {
          setRevoking(null);
          setNotice(`The invitation to ${visibleControls(invitation.email)} was revoked.`);
        }}
      />
      <SecondFactorCard email={email} />
      <NotificationsCard />
    </section>
  );
}

function InviteForm({
  roles,
  onInvited,
}: {
  roles: PartnerRole[];
  onInvited: (invitation: Invitation) => void;
}) {
  const invite = useInvite();
  const headingId = useId();
  const [role, setRole] = useState<PartnerRole | null>(null);
  const [formKey, setFormKey] = useState(0);
  const [attempt, setAttempt] = useState(() => crypto.randomUUID());
  const [serverErrors, setServerErrors] = useState<Record<string, string[]>>({});
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setServerErrors({});
    invite.mutate(
      {
        body: {
          email: String(form.get('email') ?? '').trim(),
          role: String(form.get('role')) as PartnerRole,
        },
        attempt,
      },
      {
        onSuccess: (invitation) => {
          // A fresh form (and key) for the next person.
          setRole(null);
          setFormKey((key) => key + 1);
          setAttempt(crypto.randomUUID());
          onInvited(invitation);
        },
        onError: (error) => {
          // The server answered: a corrected form is a new attempt. A lost answer keeps the key.
          if (error instanceof ApiError) {
            setAttempt(crypto.randomUUID());
            setServerErrors(fieldErrorSentences(error.errors, { email: 'E-mail address', role: 'Role' }));
          }
        },
      },
    );
  };
  const error = invite.error;
  const otherError = error && !(error instanceof ApiError && Object.keys(error.errors).length > 0);
  return (
    <Card labelledBy={headingId} className="users__invite">
      <h3 id={headingId}>Invite a user</h3>
      <Form key={formKey} className="users__invite-form" onSubmit={submit} validationErrors={serverErrors}>
        <TextField
          name="email"
          type="email"
          label="E-mail address"
          autoComplete="off"
          isRequired
          description="They get a link to set their name and password. It works for 72 hours."
          errorMessage={validationMessage(
            'Enter their e-mail address.',
            'Enter an e-mail address like name@example.com.',
          )}
        />
        <SelectFormField
          name="role"
          label="Role"
          options={roleOptions(roles)}
          value={role}
          onChange={(value) => setRole(value as PartnerRole)}
          isRequired
          description={role ? ROLE_DESCRIPTIONS[role] : 'What they may do in this dashboard.'}
          errorMessage={validationMessage('Choose a role.')}
        />
        <div className="users__invite-submit">
          <Button type="submit" isPending={invite.isPending}>
            {invite.isPending ? 'Sending…' : 'Send invitation'}
          </Button>
        </div>
      </Form>
      {otherError ? (
        <Alert tone="error">
          <p>{errorMessage(error)}</p>
        </Alert>
      ) : null}
    </Card>
  );
}

function ChangeRoleDialog({
  user,
  roles,
  onClose,
  onChanged,
}: {
  user: PartnerUser | null;
  roles: PartnerRole[];
  onClose: () => void;
  onChanged: (user: PartnerUser) => void;
}) {
  const change = useChangeRole();
  const [role, setRole] = useState<PartnerRole | null>(user?.role ?? null);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (user && role) change.mutate({ id: user.id, role }, { onSuccess: onChanged });
  };
  return (
    <ModalDialog
      title={user ? `Change the role of ${nameOf(user)}` : 'Change role'}
      isOpen={user !== null}
      onOpenChange={(open) => {
        if (!open) {
          change.reset();
          onClose();
        }
      }}
    >
      {(closeDialog) => (
        <Form className="dialog__body" onSubmit={submit}>
          <SelectFormField
            name="role"
            label="Role"
            options={roleOptions(roles)}
            value={role}
            onChange={(value) => setRole(value as PartnerRole)}
            isRequired
            description={role ? ROLE_DESCRIPTIONS[role] : undefined}
          />
          {user?.is_you ? (
            <p className="muted">This is your own role: what you may do here changes at once.</p>
          ) : null}
          {change.error ? (
            <Alert tone="error">
              <p>{errorMessage(change.error)}</p>
            </Alert>
          ) : null}
          <div className="dialog__actions">
            <Button variant="secondary" onPress={closeDialog}>
              Cancel
            </Button>
            <Button type="submit" isPending={change.isPending} isDisabled={role === user?.role}>
              {change.isPending ? 'Saving…' : 'Save role'}
            </Button>
          </div>
        </Form>
      )}
    </ModalDialog>
  );
}

function RemoveUserDialog({
  user,
  onClose,
  onRemoved,
}: {
  user: PartnerUser | null;
  onClose: () => void;
  onRemoved: (user: PartnerUser) => void;
}) {
  const remove = useRemoveUser();
  return (
    <ConfirmDialog
      title={user ? `Remove ${nameOf(user)}?` : 'Remove this user?'}
      isOpen={user !== null}
      onOpenChange={(open) => {
        if (!open) {
          remove.reset();
          onClose();
        }
      }}
      confirmLabel="Remove user"
      pendingLabel="Removing…"
      isPending={remove.isPending}
      error={remove.error}
      onConfirm={() => user && remove.mutate(user.id, { onSuccess: () => onRemoved(user) })}
    >
      <p>
        {user?.is_you ? 'You' : <UserText>{user?.name ?? ''}</UserText>} can no longer sign in, and{' '}
        {user?.is_you ? 'your' : 'their'} sessions end at once.
      </p>
      <p>
        API keys {user?.is_you ? 'you' : 'they'} created keep working until you revoke them on the API keys
        page.
      </p>
    </ConfirmDialog>
  );
}

function ResetSecondFactorDialog({
  user,
  onClose,
  onReset,
}: {
  user: PartnerUser | null;
  onClose: () => void;
  onReset: (user: PartnerUser) => void;
}) {
  const reset = useResetSecondFactor();
  return (
    <ConfirmDialog
      title={user ? `Reset the second factor of ${nameOf(user)}?` : 'Reset the second factor?'}
      isOpen={user !== null}
      onOpenChange={(open) => {
        if (!open) {
          reset.reset();
          onClose();
        }
      }}
      confirmLabel="Reset second factor"
      pendingLabel="Resetting…"
      isPending={reset.isPending}
      error={reset.error}
      onConfirm={() => user && reset.mutate(user.id, { onSuccess: () => onReset(user) })}
    >
      <p>
        For a lost phone or a locked factor: <UserText>{user?.name ?? ''}</UserText> signs in with their
        password alone, and their recovery codes stop working. They can turn a second factor on again.
      </p>
      <p>Their sessions already signed in stay. If it has no factor, nothing changes.</p>
    </ConfirmDialog>
  );
}

function RevokeInvitationDialog({
  invitation,
  onClose,
  onRevoked,
}: {
  invitation: Invitation | null;
  onClose: () => void;
  onRevoked: (invitation: Invitation) => void;
}) {
  const revoke = useRevokeInvitation();
  return (
    <ConfirmDialog
      title={invitation ? `Revoke the invitation to ${visibleControls(invitation.email)}?` : 'Revoke?'}
      isOpen={invitation !== null}
      onOpenChange={(open) => {
        if (!open) {
          revoke.reset();
          onClose();
        }
      }}
      confirmLabel="Revoke invitation"
      pendingLabel="Revoking…"
      isPending={revoke.isPending}
      error={revoke.error}
      onConfirm={() => invitation && revoke.mutate(invitation.id, { onSuccess: () => onRevoked(invitation) })}
    >
      <p>The link in the e-mail stops working at once. You can invite them again later.</p>
    </ConfirmDialog>
  );
}
