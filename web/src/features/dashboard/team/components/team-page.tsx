import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Cell, Column, Link, Row, TableBody, TableHeader } from 'react-aria-components';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { PageHeader } from '@/components/ui/page-header';
import { Pager } from '@/components/ui/pager';
import { QueryView } from '@/components/ui/query-view';
import { CellLabel, DataTable } from '@/components/ui/table';
import { UserText, userText, visibleControls } from '@/components/ui/user-text';
import type { TeamMember } from '@/lib/api/partner-types';
import { formatDate } from '@/lib/format';
import { designationLabel, idTypeLabel } from '@/lib/person-labels';
import { useCursorPages } from '@/lib/use-cursor-pages';
import { teamQuery, useRemoveMember } from '../api/team';
import { MemberDialog } from './member-dialog';
import './team.css';

export interface TeamPageProps {
  /** Whether a compliance representative is on file: team members need one first (409 otherwise). */
  hasRepresentative: boolean | undefined;
}

/** A member's name for a plain string (an accessible name, a notice), its controls shown. */
const nameOf = (member: TeamMember): string => visibleControls(`${member.first_name} ${member.last_name}`);

/** The partner's team (partner-wide, not per environment): list, add, edit, remove. BVNs only masked. */
export function TeamPage({ hasRepresentative }: TeamPageProps) {
  const pages = useCursorPages('team');
  const team = useQuery(teamQuery(pages.cursor));
  const [editing, setEditing] = useState<{ member: TeamMember | null } | null>(null);
  const [removing, setRemoving] = useState<TeamMember | null>(null);
  const [notice, setNotice] = useState('');
  const remove = useRemoveMember();

  return (
    <div className="team">
      <title>Team · Partner dashboard</title>
      <PageHeader
        title="Team"
        description="The people of your business who work with us: directors, officers and their identity details. The team is the same in the sandbox and live."
        aside={
          <Button
            onPress={() => {
              setNotice('');
              setEditing({ member: null });
            }}
          >
            Add member
          </Button>
        }
      />
      {hasRepresentative === false ? (
        <Alert tone="info" title="First, your compliance representative.">
          <p>
            Team members can be added once a compliance representative is on file: they answer for the
            identity details of your team.{' '}
            <Link href="/onboarding#representative">Add the representative</Link> in onboarding, step 2.
          </p>
        </Alert>
      ) : null}
      <p role="status" className="team__notice">
        {notice}
      </p>
      <QueryView query={team} loading="Loading the team…" errorTitle="The team could not be loaded.">
        {(data) => (
          <>
            <DataTable aria-label="Team members">
              <TableHeader>
                <Column isRowHeader>Name</Column>
                <Column>Role</Column>
                <Column>Phone</Column>
                <Column>BVN</Column>
                <Column>ID</Column>
                <Column>
                  <span className="visually-hidden">Actions</span>
                </Column>
              </TableHeader>
              <TableBody
                items={data.items}
                renderEmptyState={() => <p className="data-table__empty">No team members yet.</p>}
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
                      <CellLabel>Role</CellLabel>
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
                    </Cell>
                  </Row>
                )}
              </TableBody>
            </DataTable>
            <Pager label="Team pages" pages={pages} nextCursor={data.next_cursor} />
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
        title={removing ? `Remove ${nameOf(removing)}?` : 'Remove member?'}
        isOpen={removing !== null}
        onOpenChange={(open) => {
          if (!open) {
            remove.reset();
            setRemoving(null);
          }
        }}
        confirmLabel="Remove member"
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
        <p>Their details are deleted from your team. You can add them again later.</p>
      </ConfirmDialog>
    </div>
  );
}
