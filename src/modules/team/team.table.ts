import type { Designation, Gender, IdType } from '../people/people.schemas.js';

export interface TeamMembersTable {
  id: string;
  partner_id: number;
  first_name: string;
  last_name: string;
  email: string;
  phone: string;
  dob: string;
  gender: Gender;
  designation: Designation;
  bvn_encrypted: string;
  bvn_hash: string;
  bvn_last4: string;
  id_type: IdType;
  id_file_url: string;
  address: string;
  created_at: number;
  updated_at: number;
}
