import { type Static, Type } from '@sinclair/typebox';
import {
  Page,
  PaginationQuery,
  StoredPhone,
  StringEnum,
  Success,
  Timestamp,
} from '../../platform/http/schemas.js';
import { DESIGNATIONS, GENDERS, ID_TYPES, PersonFields } from '../people/people.schemas.js';

const IdFileUrl = Type.String({
  format: 'https-url',
  maxLength: 2048,
  description: 'https URL of the member’s ID document; stored, never fetched.',
  examples: ['https://files.acme.ng/ids/chidi.pdf'],
});

const example = {
  first_name: 'Chidi',
  last_name: 'Okafor',
  email: 'chidi@acme.ng',
  phone: '+2348020000000',
  dob: '1990-06-01',
  gender: 'male',
  designation: 'compliance_officer',
  bvn: '22234567890',
  id_type: 'drivers_license',
  id_file_url: 'https://files.acme.ng/ids/chidi.pdf',
  address: '4 Broad Street, Lagos',
};

export const CreateTeamMemberBody = Type.Object(
  { ...PersonFields, id_file_url: IdFileUrl },
  { examples: [example] },
);
export type CreateTeamMemberBody = Static<typeof CreateTeamMemberBody>;

const { bvn, ...withoutBvn } = PersonFields;
export const UpdateTeamMemberBody = Type.Object(
  {
    ...withoutBvn,
    id_file_url: IdFileUrl,
    bvn: Type.Optional({
      ...bvn,
      description: 'Optional; a BVN different from the stored one is 409 BVN_IMMUTABLE.',
    }),
  },
  { examples: [{ ...example, bvn: undefined, address: '7 Broad Street, Lagos' }] },
);
export type UpdateTeamMemberBody = Static<typeof UpdateTeamMemberBody>;

export const TeamMember = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    first_name: Type.String(),
    last_name: Type.String(),
    email: Type.String({ format: 'email' }),
    phone: StoredPhone(),
    dob: Type.String({ format: 'date' }),
    gender: StringEnum(GENDERS),
    designation: StringEnum(DESIGNATIONS),
    bvn: Type.String({ description: 'Masked: *******1234.', examples: ['*******7890'] }),
    id_type: StringEnum(ID_TYPES),
    id_file_url: Type.String(),
    address: Type.String(),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'TeamMember' },
);

export const TeamMemberParams = Type.Object({ memberId: Type.String({ format: 'uuid' }) });
export type TeamMemberParams = Static<typeof TeamMemberParams>;
export const TeamListQuery = PaginationQuery;
export const TeamMemberResponse = Success(TeamMember, 'Team member.');
export const TeamListResponse = Success(Page(TeamMember), 'Team members.');
