import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Cell, Column, Link, Row, TableBody, TableHeader } from 'react-aria-components';
import { RoleNote } from '@/components/role-note';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Pager } from '@/components/ui/pager';
import { QueryView } from '@/components/ui/query-view';
import { SectionHeader } from '@/components/ui/section-header';
import { CellLabel, DataTable } from '@/components/ui/table';
import { UserText, userText, visibleControls } from '@/components/ui/user-text';
import type { TeamMember } from '@/lib/api/partner-types';
import { formatDate } from '@/lib/format';
import { useAccess } from '@/lib/partner-roles';
import { designationLabel, idTypeLabel } from '@/lib/person-labels';
import { useCursorPages } from '@/lib/use-cursor-pages';
import { teamQuery, useRemoveMember } from '../api/team';
import { MemberDialog } from './member-dialog';
import './team.css';

export interface TeamPageProps {
  /** Whether a compliance representative is on file: directors and officers need one first (409 otherwise). */
  hasRepresentative: boolean | undefined;
}

/** A member's name for a plain string (an accessible name, a notice), its controls shown. */
const nameOf = (member: TeamMember): string => visibleControls(`${member.first_name} ${member.last_name}`);

/**
 * The directors and officers of the business (partner-wide, not per environment; the API's
 * settings/team): list, add, edit, remove. BVNs only masked. They are people on file for compliance,
 * not users: who may sign in is the users page.
 */
export function TeamPage({ hasRepresentative }: TeamPageProps) {
  const pages = useCursorPages('team');
  const team = useQuery(teamQuery(pages.cursor));
  const [editing, setEditing] = useState<{ member: TeamMember | null } | null>(null);
  const [removing, setRemoving] = useState<TeamMember | null>(null);
  const [notice, setNotice] = useState('');
  const remove = useRemoveMember();
  const canChange = useAccess('officers').allowed;

  return (
    <section className="team" aria-labelledby="officers-heading">
      <title>Directors and officers · Partner dashboard</title>
      <SectionHeader
        id="officers-heading"
        title="Directors and officers"
        description={
          <p>
            The directors and officers of your business on file with us, with their identity details, the same
            in the sandbox and live. They do not sign in here: to give someone access to this dashboard,
            invite them as a user.
          </p>
        }
        action={
          canChange ? (
            <Button
              onPress={() => {
                setNotice('');
                setEditing({ member: null });
              }}
            >
              Add director or officer
            </Button>
          ) : undefined
        }
      />
      <RoleNote access="officers" />
      {canChange && hasRepresentative === false ? (
        <Alert tone="info" title="First, your compliance representative.">
          <p>
            Directors and officers can be added once a compliance representative is on file: they answer for
            the identity details of the people you add.{' '}
            <Link href="/onboarding#representative">Add the representative</Link> in onboarding, step 2.
          </p>
        </Alert>
      ) : null}
      <p role="status" className="team__notice">
        {notice}
      </p>
      <QueryView
        query={team}
        loading="Loading directors and officers…"
        errorTitle="The directors and officers could not be loaded."
      >
        {(data) => (
          <>
            <DataTable aria-label="Directors and officers">
              <TableHeader>
                <Column isRowHeader>Name</Column>
                <Column>Position</Column>
                <Column>Phone</Column>
                <Column>BVN</Column>
                <Column>ID</Column>
                <Column>
                  <span className="visually-hidden">Actions</span>
                </Column>
              </TableHeader>
              <TableBody
                items={data.items}
                renderEmptyState={() => (
                  <p className="data-table__empty">No directors or officers on file yet.</p>
                )}
              >
                {(member) => (
                  <Row id={member.id} textValue={nameOf(member)}>
                    <Cell>
                      <span className="data-table__primary">
                        <UserText>{`${member.first_name} ${member.last_name}`}</UserText>
                      </span>
                      <span className="data-table__secondary">
                        <UserText>{member.email}</UserText>
                      </span>
                    </Cell>
                    <Cell>
                      <CellLabel>Position</CellLabel>
                      {designationLabel(member.designation)}
                      <span className="data-table__secondary">Born {formatDate(member.dob)}</span>
                    </Cell>
                    <Cell>
                      <CellLabel>Phone</CellLabel>
                      <UserText>{member.phone}</UserText>
                    </Cell>
                    <Cell>
                      <CellLabel>BVN</CellLabel>
                      <code>{member.bvn}</code>
                    </Cell>
                    <Cell>
                      <CellLabel>ID</CellLabel>
                      {idTypeLabel(member.id_type)}
                      <span className="data-table__secondary team__link">{userText(member.id_file_url)}</span>
                    </Cell>
                    <Cell>
                      {canChange ? (
                        <div className="team__actions">
                          <Button
                            variant="secondary"
                            size="small"
                            aria-label={`Edit ${nameOf(member)}`}
                            onPress={() => {
                              setNotice('');
                              setEditing({ member });
                            }}
                          >
                            Edit
                          </Button>
                          <Button
                            variant="quiet"
                            size="small"
                            aria-label={`Remove ${nameOf(member)}`}
                            onPress={() => setRemoving(member)}
                          >
                            Remove
                          </Button>
                        </div>
                      ) : null}
                    </Cell>
                  </Row>
                )}
              </TableBody>
            </DataTable>
            <Pager label="Directors and officers pages" pages={pages} nextCursor={data.next_cursor} />
          </>
        )}
      </QueryView>
      <MemberDialog
        key={editing?.member?.id ?? 'new'}
        isOpen={editing !== null}
        onOpenChange={(open) => !open && setEditing(null)}
        member={editing?.member ?? null}
        onSaved={(member, added) => {
          setEditing(null);
          setNotice(`${nameOf(member)} ${added ? 'was added' : 'was updated'}.`);
        }}
      />
      <ConfirmDialog
        title={removing ? `Remove ${nameOf(removing)}?` : 'Remove this person?'}
        isOpen={removing !== null}
        onOpenChange={(open) => {
          if (!open) {
            remove.reset();
            setRemoving(null);
          }
        }}
        confirmLabel="Remove"
        pendingLabel="Removing…"
        isPending={remove.isPending}
        error={remove.error}
        onConfirm={() =>
          removing &&
          remove.mutate(removing.id, {
            onSuccess: () => {
              setNotice(`${nameOf(removing)} was removed.`);
              setRemoving(null);
            },
          })
        }
      >
        <p>Their details are deleted from your directors and officers. You can add them again later.</p>
      </ConfirmDialog>
    </section>
  );
}
