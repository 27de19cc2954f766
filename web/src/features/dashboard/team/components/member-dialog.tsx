import { ApiError } from '@baas/sdk';
import { type FormEvent, useState } from 'react';
import { Form, Link } from 'react-aria-components';
import { PersonFields, readPerson } from '@/components/person-fields';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { ModalDialog } from '@/components/ui/modal-dialog';
import { TextField } from '@/components/ui/text-field';
import { visibleControls } from '@/components/ui/user-text';
import { errorMessage } from '@/lib/api/api-error';
import type { TeamMember } from '@/lib/api/partner-types';
import { PERSON_FIELD_LABELS } from '@/lib/person-labels';
import { fieldErrorSentences, validationMessage } from '@/lib/validation-message';
import { type MemberFields, useAddMember, useUpdateMember } from '../api/team';

export interface MemberDialogProps {
  isOpen: boolean;
  onOpenChange: (isOpen: boolean) => void;
  /** The member to edit; none to add one. */
  member: TeamMember | null;
  onSaved: (member: TeamMember, added: boolean) => void;
}

/** Add or edit a director or officer. A BVN is given once, when adding; after that it cannot change. */
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
    const { bvn, ...person } = readPerson(form);
    const fields = { ...person, id_file_url: String(form.get('id_file_url') ?? '').trim() } as MemberFields;
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
      add.mutate({ ...fields, bvn: bvn ?? '' }, { onSuccess: (saved) => onSaved(saved, true), onError });
    }
  };
  const error = mutation.error;
  const representativeMissing = error instanceof ApiError && error.errorCode === 'REPRESENTATIVE_REQUIRED';
  const otherError = error && !(error instanceof ApiError && Object.keys(error.errors).length > 0);

  return (
    <ModalDialog
      title={
        member
          ? `Edit ${visibleControls(`${member.first_name} ${member.last_name}`)}`
          : 'Add a director or officer'
      }
      isOpen={isOpen}
      onOpenChange={close}
    >
      {(closeDialog) => (
        <Form className="dialog__body member-form" onSubmit={submit} validationErrors={serverErrors}>
          <PersonFields
            person={member}
            autoFocus
            bvn={
              member
                ? { onFile: member.bvn }
                : {
                    description:
                      '11 digits. Stored encrypted; shown only as its last 4 digits, and it cannot be changed later.',
                  }
            }
            idDocument={
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
            }
          />
          {representativeMissing ? (
            <Alert tone="warning" title="Add your compliance representative first.">
              <p>
                Directors and officers can be added once a compliance representative is on file.{' '}
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
              {mutation.isPending ? 'Saving…' : member ? 'Save changes' : 'Add'}
            </Button>
          </div>
        </Form>
      )}
    </ModalDialog>
  );
}
