import { Type } from '@sinclair/typebox';
import { DateOnly, Email, FreeText, Phone, StringEnum } from '../../platform/http/schemas.js';

export const GENDERS = ['male', 'female'] as const;
export type Gender = (typeof GENDERS)[number];
export const DESIGNATIONS = [
  'director',
  'compliance_officer',
  'chief_executive_officer',
  'chief_financial_officer',
  'company_secretary',
] as const;
export type Designation = (typeof DESIGNATIONS)[number];
export const ID_TYPES = ['national_id', 'international_passport', 'drivers_license', 'voters_card'] as const;
export type IdType = (typeof ID_TYPES)[number];

/** Person fields shared by the compliance representative and team members. */
export const PersonFields = {
  first_name: Type.String({ maxLength: 100, examples: ['Ada'] }),
  last_name: Type.String({ maxLength: 100, examples: ['Obi'] }),
  email: Email({ examples: ['ada.obi@acme.ng'] }),
  phone: Phone(),
  dob: DateOnly({ description: 'YYYY-MM-DD, a real date in the past; age 18-120.' }),
  gender: StringEnum(GENDERS),
  designation: StringEnum(DESIGNATIONS),
  bvn: Type.String({
    pattern: '^[0-9]{11}$',
    errorMessage: 'must be exactly 11 digits',
    description: 'Bank Verification Number: exactly 11 digits. Encrypted at rest, never returned whole.',
    examples: ['22123456789'],
  }),
  id_type: StringEnum(ID_TYPES),
  address: FreeText({ maxLength: 255, examples: ['12 Marina, Lagos'] }),
};
