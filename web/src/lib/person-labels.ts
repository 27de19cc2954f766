/**
 * Names of the API's enums about people: representatives and team members (docs/partner-guide.md,
 * "Onboarding: profile, representative, documents" and "API keys and team members").
 */

export const DESIGNATION_OPTIONS = [
  { id: 'director', label: 'Director' },
  { id: 'compliance_officer', label: 'Compliance officer' },
  { id: 'chief_executive_officer', label: 'Chief executive officer' },
  { id: 'chief_financial_officer', label: 'Chief financial officer' },
  { id: 'company_secretary', label: 'Company secretary' },
];

export const ID_TYPE_OPTIONS = [
  { id: 'national_id', label: 'National ID (NIN slip or card)' },
  { id: 'international_passport', label: 'International passport' },
  { id: 'drivers_license', label: "Driver's licence" },
  { id: 'voters_card', label: "Voter's card" },
];

export const GENDER_OPTIONS = [
  { id: 'female', label: 'Female' },
  { id: 'male', label: 'Male' },
];

const labelOf = (options: Array<{ id: string; label: string }>, id: string): string =>
  options.find((option) => option.id === id)?.label ?? id;

export const designationLabel = (id: string) => labelOf(DESIGNATION_OPTIONS, id);
export const idTypeLabel = (id: string) => labelOf(ID_TYPE_OPTIONS, id);

/** The labels of a person's fields, for turning the API's field errors into sentences. */
export const PERSON_FIELD_LABELS: Record<string, string> = {
  first_name: 'First name',
  last_name: 'Last name',
  email: 'E-mail address',
  phone: 'Phone number',
  dob: 'Date of birth',
  gender: 'Gender',
  designation: 'Role',
  bvn: 'BVN',
  id_type: 'ID type',
  address: 'Address',
  id_file: 'ID document',
  id_file_url: 'ID document link',
};
