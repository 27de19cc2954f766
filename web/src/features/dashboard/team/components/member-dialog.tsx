import { ApiError } from '@baas/sdk';
import { type FormEvent, useState } from 'react';
import { Form, Link } from 'react-aria-components';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { ModalDialog } from '@/components/ui/modal-dialog';
import { RadioGroupField } from '@/components/ui/radio-group-field';
import { SelectFormField } from '@/components/ui/select-form-field';
import { TextField } from '@/components/ui/text-field';
import { visibleControls } from '@/components/ui/user-text';
import { errorMessage } from '@/lib/api/api-error';
import type { TeamMember } from '@/lib/api/partner-types';
import {
  DESIGNATION_OPTIONS,
  GENDER_OPTIONS,
  ID_TYPE_OPTIONS,
  PERSON_FIELD_LABELS,
} from '@/lib/person-labels';
import { fieldErrorSentences, validationMessage } from '@/lib/validation-message';
import '@/components/ui/form-controls.css';
import { type MemberFields, useAddMember, useUpdateMember } from '../api/team';

const TEXT_FIELDS = ['first_name', 'last_name', 'email', 'phone', 'dob', 'id_file_url', 'address'] as const;

export interface MemberDialogProps {
  isOpen: boolean;
  onOpenChange: (isOpen: boolean) => void;
  /** The member to edit; none to add one. */
  member: TeamMember | null;
  onSaved: (member: TeamMember, added: boolean) => void;
}

/** Add or edit a team member. A BVN is given once, when adding; after that it cannot change. */
export function MemberDialog({ isOpen, onOpenChange, member, onSaved }: MemberDialogProps) {
  const add = useAddMember();
  const update = useUpdateMember();
  const mutation = member ? update : add;
  const [serverErrors, setServerErrors] = useState<Record<string, string[]>>({});

  const close = (open: boolean) => {
    if (!open) {
      add.reset();
      update.reset();
      setServerErrors({});
    }
    onOpenChange(open);
  };
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const value = (name: string) => String(form.get(name) ?? '').trim();
    const fields = {
      ...Object.fromEntries(TEXT_FIELDS.map((name) => [name, value(name)])),
      gender: value('gender'),
      designation: value('designation'),
      id_type: value('id_type'),
    } as unknown as MemberFields;
    const onError = (error: Error) => {
      if (error instanceof ApiError) setServerErrors(fieldErrorSentences(error.errors, PERSON_FIELD_LABELS));
    };
    setServerErrors({});
    if (member) {
      update.mutate(
        { id: member.id, body: fields },
        { onSuccess: (saved) => onSaved(saved, false), onError },
      );
    } else {
      add.mutate({ ...fields, bvn: value('bvn') }, { onSuccess: (saved) => onSaved(saved, true), onError });
    }
  };
  const error = mutation.error;
  const representativeMissing = error instanceof ApiError && error.errorCode === 'REPRESENTATIVE_REQUIRED';
  const otherError = error && !(error instanceof ApiError && Object.keys(error.errors).length > 0);

  return (
    <ModalDialog
      title={
        member ? `Edit ${visibleControls(`${member.first_name} ${member.last_name}`)}` : 'Add a team member'
      }
      isOpen={isOpen}
      onOpenChange={close}
    >
      {(closeDialog) => (
        <Form className="dialog__body member-form" onSubmit={submit} validationErrors={serverErrors}>
          <div className="form-grid">
            <TextField
              name="first_name"
              label="First name"
              defaultValue={member?.first_name ?? ''}
              maxLength={100}
              isRequired
              autoFocus
              errorMessage={validationMessage('Enter the first name.')}
            />
            <TextField
              name="last_name"
              label="Last name"
              defaultValue={member?.last_name ?? ''}
              maxLength={100}
              isRequired
              errorMessage={validationMessage('Enter the last name.')}
            />
            <TextField
              name="email"
              type="email"
              label="E-mail address"
              defaultValue={member?.email ?? ''}
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
              defaultValue={member?.phone ?? ''}
              minLength={7}
              maxLength={20}
              pattern="[0-9+\(\) \-]+"
              isRequired
              errorMessage={validationMessage(
                'Enter their phone number.',
                'Enter 7 to 20 digits; spaces, +, -, ( and ) are allowed.',
              )}
            />
            <TextField
              name="dob"
              type="date"
              label="Date of birth"
              defaultValue={member?.dob ?? ''}
              isRequired
              errorMessage={validationMessage('Enter their date of birth.')}
            />
            <RadioGroupField
              name="gender"
              label="Gender"
              options={GENDER_OPTIONS}
              {...(member ? { defaultValue: member.gender } : {})}
              isRequired
              errorMessage={validationMessage('Choose one.')}
            />
            <SelectFormField
              name="designation"
              label="Role in the business"
              options={DESIGNATION_OPTIONS}
              defaultValue={member?.designation ?? null}
              isRequired
              errorMessage={validationMessage('Choose their role.')}
            />
            {member ? (
              <p className="team-dialog__bvn">
                <span className="field__label">BVN</span> <code>{member.bvn}</code>
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
                description="11 digits. Stored encrypted; shown only as its last 4 digits, and it cannot be changed later."
                errorMessage={validationMessage('Enter their BVN.', 'A BVN has exactly 11 digits.')}
              />
            )}
            <SelectFormField
              name="id_type"
              label="ID type"
              options={ID_TYPE_OPTIONS}
              defaultValue={member?.id_type ?? null}
              isRequired
              errorMessage={validationMessage('Choose the type of ID.')}
            />
            <TextField
              name="id_file_url"
              type="url"
              label="ID document link"
              defaultValue={member?.id_file_url ?? ''}
              placeholder="https://"
              pattern="https://.+"
              maxLength={2048}
              isRequired
              description="An https address of a copy of their ID that you host."
              errorMessage={validationMessage(
                'Enter the link to their ID.',
                'The link must start with https://.',
              )}
            />
            <div className="form-grid__wide">
              <TextField
                name="address"
                label="Address"
                defaultValue={member?.address ?? ''}
                maxLength={255}
                isRequired
                errorMessage={validationMessage('Enter their address.')}
              />
            </div>
          </div>
          {representativeMissing ? (
            <Alert tone="warning" title="Add your compliance representative first.">
              <p>
                Team members can be added once a compliance representative is on file.{' '}
                <Link href="/onboarding#representative">Add the representative</Link> in onboarding, step 2.
              </p>
            </Alert>
          ) : otherError ? (
            <Alert tone="error">
              <p>{errorMessage(error)}</p>
            </Alert>
          ) : null}
          <div className="dialog__actions">
            <Button variant="secondary" onPress={closeDialog}>
              Cancel
            </Button>
            <Button type="submit" isPending={mutation.isPending}>
              {mutation.isPending ? 'Saving…' : member ? 'Save changes' : 'Add member'}
            </Button>
          </div>
        </Form>
      )}
    </ModalDialog>
  );
}
