import { type ReactNode, useState } from 'react';
import { DateField } from '@/components/ui/date-field';
import { RadioGroupField } from '@/components/ui/radio-group-field';
import { SelectFormField } from '@/components/ui/select-form-field';
import { TextField } from '@/components/ui/text-field';
import { formatLongDate } from '@/lib/format';
import { DESIGNATION_OPTIONS, GENDER_OPTIONS, ID_TYPE_OPTIONS } from '@/lib/person-labels';
import { validationMessage } from '@/lib/validation-message';
import '@/components/ui/form-controls.css';
import './person-fields.css';

/** A person's fields as the API names them, for a compliance representative and a director or officer alike. */
const PERSON_FIELDS = [
  'first_name',
  'last_name',
  'email',
  'phone',
  'dob',
  'gender',
  'designation',
  'id_type',
  'address',
] as const;

export type PersonFieldValues = Record<(typeof PERSON_FIELDS)[number], string> & { bvn?: string };

/** What the form holds of the person, trimmed, as the API takes it; the BVN when the form asked for it. */
export function readPerson(form: FormData): PersonFieldValues {
  const value = (name: string) => String(form.get(name) ?? '').trim();
  const person = Object.fromEntries(PERSON_FIELDS.map((name) => [name, value(name)])) as PersonFieldValues;
  return form.has('bvn') ? { ...person, bvn: value('bvn') } : person;
}

export interface PersonFieldsProps {
  /** The person as on file, when editing; the fields start empty otherwise. */
  person?: Partial<Record<(typeof PERSON_FIELDS)[number], string | null>> | null | undefined;
  /** The BVN as a field (its description says what becomes of it), or the masked one on file. */
  bvn: { description: string } | { onFile: string };
  /** The address's label: "Residential address" where the address goes with an identity check. */
  addressLabel?: string;
  /** The ID document, last and full width: the caller's field (an upload or a link). */
  idDocument: ReactNode;
  /** Focus the first field as it appears (in a dialog). */
  autoFocus?: boolean;
}

/**
 * A person's details in two columns: names, contact, date of birth, gender, role, BVN, ID type,
 * address and the ID document, each with the checks the API makes. The browser's autofill is off: it
 * would offer the signed-in person's own details for someone else.
 */
export function PersonFields({
  person,
  bvn,
  addressLabel = 'Address',
  idDocument,
  autoFocus = false,
}: PersonFieldsProps) {
  const [dob, setDob] = useState(person?.dob ?? '');
  return (
    <div className="form-grid">
      <TextField
        name="first_name"
        label="First name"
        defaultValue={person?.first_name ?? ''}
        autoComplete="off"
        maxLength={100}
        isRequired
        autoFocus={autoFocus}
        errorMessage={validationMessage('Enter the first name.')}
      />
      <TextField
        name="last_name"
        label="Last name"
        defaultValue={person?.last_name ?? ''}
        autoComplete="off"
        maxLength={100}
        isRequired
        errorMessage={validationMessage('Enter the last name.')}
      />
      <TextField
        name="email"
        type="email"
        label="E-mail address"
        defaultValue={person?.email ?? ''}
        autoComplete="off"
        isRequired
        errorMessage={validationMessage(
          'Enter their e-mail address.',
          'Enter an e-mail address like name@example.com.',
        )}
      />
      <TextField
        name="phone"
        type="tel"
        label="Phone number"
        defaultValue={person?.phone ?? ''}
        autoComplete="off"
        minLength={7}
        maxLength={20}
        pattern="[0-9+\(\) \-]+"
        isRequired
        errorMessage={validationMessage(
          'Enter their phone number.',
          'Enter a phone number such as 0803 123 4567, or +44 20 7946 0958 abroad.',
        )}
      />
      <DateField
        name="dob"
        label="Date of birth"
        value={dob}
        onChange={setDob}
        isRequired
        // Typed in the reader's locale's order; spelled out as well, so 12 April 1990 is never read
        // as 4 December.
        description={
          formatLongDate(dob) ? (
            <>
              <span className="person-fields__date">{formatLongDate(dob)}</span>. They must be at least 18.
            </>
          ) : (
            'They must be at least 18.'
          )
        }
        errorMessage={validationMessage(
          'Enter their date of birth.',
          'Enter the whole date: day, month and year.',
        )}
      />
      <RadioGroupField
        name="gender"
        label="Gender"
        options={GENDER_OPTIONS}
        {...(person?.gender ? { defaultValue: person.gender } : {})}
        isRequired
        errorMessage={validationMessage('Choose one.')}
      />
      <SelectFormField
        name="designation"
        label="Role in the business"
        options={DESIGNATION_OPTIONS}
        defaultValue={person?.designation ?? null}
        isRequired
        errorMessage={validationMessage('Choose their role.')}
      />
      {'onFile' in bvn ? (
        <p className="person-fields__bvn">
          <span className="field__label">BVN</span> <code>{bvn.onFile}</code>
          <span className="field__description">A BVN cannot change once given.</span>
        </p>
      ) : (
        <TextField
          name="bvn"
          label="BVN"
          inputMode="numeric"
          autoComplete="off"
          pattern="[0-9]{11}"
          maxLength={11}
          isRequired
          description={bvn.description}
          errorMessage={validationMessage('Enter their BVN.', 'A BVN has exactly 11 digits.')}
        />
      )}
      <SelectFormField
        name="id_type"
        label="ID type"
        options={ID_TYPE_OPTIONS}
        defaultValue={person?.id_type ?? null}
        isRequired
        errorMessage={validationMessage('Choose the type of ID.')}
      />
      <TextField
        name="address"
        label={addressLabel}
        defaultValue={person?.address ?? ''}
        autoComplete="off"
        maxLength={255}
        isRequired
        errorMessage={validationMessage('Enter their address.')}
      />
      <div className="form-grid__wide">{idDocument}</div>
    </div>
  );
}
