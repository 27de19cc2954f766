import type { Kysely } from 'kysely';
import { actorOf, type RequestMeta } from '../../platform/audit/audit.repository.js';
import type { AuditedWrite } from '../../platform/audit/audited-write.js';
import type { PartnerCredential } from '../../platform/auth/credentials.js';
import { type Clock, toIso } from '../../platform/clock.js';
import { bvnHash, maskBvn, sealBvn } from '../../platform/crypto/bvn.js';
import type { KeyRing } from '../../platform/crypto/keys.js';
import { newId } from '../../platform/crypto/tokens.js';
import type { Database } from '../../platform/db/schema.js';
import { AppError, validationError } from '../../platform/errors/errors.js';
import { extend } from '../../platform/objects.js';
import { keysetCursor } from '../../platform/pagination/cursor.js';
import { checkDob } from '../people/date-of-birth.js';
import * as repo from './team.repository.js';
import type { CreateTeamMemberBody, UpdateTeamMemberBody } from './team.schemas.js';

export interface TeamDeps {
  db: Kysely<Database>;
  write: AuditedWrite;
  clock: Clock;
  keys: KeyRing;
  /** From the onboarding module: team members need a compliance representative on file. */
  hasRepresentative(partnerId: number): Promise<boolean>;
}

const EMAIL_TAKEN = { email: ['is already a member of this team'] };

export type TeamService = ReturnType<typeof createTeamService>;

/** Team members are partner-wide: the same in sandbox and live. */
export function createTeamService({ db, write, clock, keys, hasRepresentative }: TeamDeps) {
  const emailTaken = () => validationError(EMAIL_TAKEN);

  const view = (row: repo.TeamMemberRow) => ({
    id: row.id,
    first_name: row.first_name,
    last_name: row.last_name,
    email: row.email,
    phone: row.phone,
    dob: row.dob,
    gender: row.gender,
    designation: row.designation,
    bvn: maskBvn(row.bvn_last4),
    id_type: row.id_type,
    id_file_url: row.id_file_url,
    address: row.address,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  });

  async function create(credential: PartnerCredential, input: CreateTeamMemberBody, meta: RequestMeta) {
    checkDob(input.dob, clock.now());
    if (!(await hasRepresentative(credential.partnerId))) throw new AppError('REPRESENTATIVE_REQUIRED');
    const id = newId();
    const { bvn, ...fields } = input;
    // The answer is made in the write: an idempotent request records it in the same transaction.
    return write(
      { actor: actorOf(credential), meta, onUniqueViolation: emailTaken },
      async ({ trx, now, audit }) => {
        await repo.insertMember(trx, {
          id,
          partner_id: credential.partnerId,
          ...fields,
          ...sealBvn(keys, bvn),
          created_at: now,
          updated_at: now,
        });
        audit({
          action: 'team.member_added',
          targetType: 'team_member',
          targetId: id,
          metadata: { email: input.email, bvn: maskBvn(bvn.slice(-4)) },
        });
        return view((await repo.findMember(trx, credential.partnerId, id))!);
      },
    );
  }

  async function get(partnerId: number, id: string) {
    const row = await repo.findMember(db, partnerId, id);
    if (!row) throw new AppError('NOT_FOUND');
    return view(row);
  }

  async function list(partnerId: number, filter: { cursor?: string; limit: number }) {
    const cursor = keysetCursor(keys.cursor, 'team_members', partnerId, 'string');
    const afterId = cursor.decode(filter.cursor);
    const rows = await repo.listMembers(db, partnerId, {
      limit: filter.limit,
      ...(afterId ? { afterId } : {}),
    });
    const page = cursor.page(rows, filter.limit, (row) => row.id);
    return { items: page.items.map(view), next_cursor: page.next_cursor };
  }

  async function update(
    credential: PartnerCredential,
    id: string,
    input: UpdateTeamMemberBody,
    meta: RequestMeta,
  ) {
    checkDob(input.dob, clock.now());
    const existing = await repo.findMember(db, credential.partnerId, id);
    if (!existing) throw new AppError('NOT_FOUND');
    const { bvn, ...fields } = input;
    if (bvn !== undefined && bvnHash(keys, bvn) !== existing.bvn_hash) throw new AppError('BVN_IMMUTABLE');
    await write(
      { actor: actorOf(credential), meta, onUniqueViolation: emailTaken },
      async ({ trx, now, audit }) => {
        if (!(await repo.updateMember(trx, credential.partnerId, id, extend(fields, { updated_at: now })))) {
          throw new AppError('NOT_FOUND');
        }
        const changed = (Object.keys(fields) as Array<keyof typeof fields>).filter(
          (field) => fields[field] !== existing[field],
        );
        audit({
          action: 'team.member_updated',
          targetType: 'team_member',
          targetId: id,
          metadata: { fields: changed },
        });
      },
    );
    return get(credential.partnerId, id);
  }

  async function remove(credential: PartnerCredential, id: string, meta: RequestMeta) {
    const member = await get(credential.partnerId, id);
    await write({ actor: actorOf(credential), meta }, async ({ trx, audit }) => {
      if (!(await repo.deleteMember(trx, credential.partnerId, id))) throw new AppError('NOT_FOUND');
      audit({
        action: 'team.member_removed',
        targetType: 'team_member',
        targetId: id,
        metadata: { email: member.email },
      });
    });
    return member;
  }

  return { create, get, list, update, remove };
}
