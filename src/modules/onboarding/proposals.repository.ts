import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { DecisionProposalsTable, ProposalAction, ProposalStatus } from './onboarding.table.js';

/** A proposal with the names of the operators who proposed and settled it, and the partner's name. */
export type ProposalRow = Selectable<DecisionProposalsTable> & {
  proposed_by_name: string | null;
  settled_by_name: string | null;
  business_name: string;
};

const proposalQuery = (db: Kysely<Database>) =>
  db
    .selectFrom('decision_proposals')
    .innerJoin('partners', 'partners.id', 'decision_proposals.partner_id')
    .leftJoin('operators as proposer', 'proposer.id', 'decision_proposals.proposed_by_id')
    .leftJoin('operators as settler', 'settler.id', 'decision_proposals.settled_by_id')
    .selectAll('decision_proposals')
    .select([
      'proposer.name as proposed_by_name',
      'settler.name as settled_by_name',
      'partners.business_name',
    ]);

export async function insertProposal(
  db: Kysely<Database>,
  row: Insertable<DecisionProposalsTable>,
): Promise<void> {
  await db.insertInto('decision_proposals').values(row).execute();
}

export function findProposal(db: Kysely<Database>, id: string): Promise<ProposalRow | undefined> {
  return proposalQuery(db).where('decision_proposals.id', '=', id).executeTakeFirst();
}

/** The pending proposal of `action` for a partner, if any (the unique index allows one). */
export function findPendingProposal(
  db: Kysely<Database>,
  partnerId: number,
  action: ProposalAction,
): Promise<ProposalRow | undefined> {
  return proposalQuery(db)
    .where('decision_proposals.partner_id', '=', partnerId)
    .where('decision_proposals.action', '=', action)
    .where('decision_proposals.status', '=', 'pending')
    .executeTakeFirst();
}

/** Newest first (ids are time-ordered). */
export function listProposals(
  db: Kysely<Database>,
  filter: { status?: ProposalStatus; partnerId?: number; beforeId?: string; limit: number },
): Promise<ProposalRow[]> {
  let query = proposalQuery(db)
    .orderBy('decision_proposals.id', 'desc')
    .limit(filter.limit + 1);
  if (filter.status !== undefined) query = query.where('decision_proposals.status', '=', filter.status);
  if (filter.partnerId !== undefined)
    query = query.where('decision_proposals.partner_id', '=', filter.partnerId);
  if (filter.beforeId !== undefined) query = query.where('decision_proposals.id', '<', filter.beforeId);
  return query.execute();
}

/** The pending proposals of a page of partners, by partner id (the queue marks them). */
export async function pendingProposalsOf(
  db: Kysely<Database>,
  partnerIds: number[],
): Promise<Map<number, ProposalRow>> {
  if (partnerIds.length === 0) return new Map();
  const rows = await proposalQuery(db)
    .where('decision_proposals.partner_id', 'in', partnerIds)
    .where('decision_proposals.status', '=', 'pending')
    .orderBy('decision_proposals.id')
    .execute();
  return new Map(rows.map((row) => [row.partner_id, row]));
}

export interface Settlement {
  status: Exclude<ProposalStatus, 'pending'>;
  byType: 'operator' | 'api_key' | null;
  byId: string | null;
  declineReason?: string | null;
  now: number;
}

/**
 * Settles a pending proposal in one conditional statement: of racing confirmations, declines and
 * withdrawals exactly one matches. With `proposedBy`, only the proposer's own (a withdrawal).
 * False when it was not pending (or not the proposer's).
 */
export async function settleProposal(
  db: Kysely<Database>,
  id: string,
  settlement: Settlement,
  proposedBy?: { type: 'operator' | 'api_key'; id: string | null },
): Promise<boolean> {
  let query = db
    .updateTable('decision_proposals')
    .set({
      status: settlement.status,
      settled_by_type: settlement.byType,
      settled_by_id: settlement.byId,
      settled_at: settlement.now,
      decline_reason: settlement.declineReason ?? null,
    })
    .where('id', '=', id)
    .where('status', '=', 'pending');
  if (proposedBy !== undefined) {
    query = query.where('proposed_by_type', '=', proposedBy.type);
    query =
      proposedBy.id === null
        ? query.where('proposed_by_id', 'is', null)
        : query.where('proposed_by_id', '=', proposedBy.id);
  }
  const result = await query.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Voids every pending proposal of a partner whose onboarding_status moved: each was made for the
 * status it had (a suspension of an active partner), so none may be confirmed for another one.
 * Answers the ids voided.
 */
export async function voidPendingProposals(
  db: Kysely<Database>,
  partnerId: number,
  now: number,
): Promise<string[]> {
  const rows = await db
    .updateTable('decision_proposals')
    .set({ status: 'void', settled_at: now })
    .where('partner_id', '=', partnerId)
    .where('status', '=', 'pending')
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}
