import { ApiError } from '@baas/sdk';
import { type FormEvent, useState } from 'react';
import { Form, Link } from 'react-aria-components';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { ModalDialog } from '@/components/ui/modal-dialog';
import { TextField } from '@/components/ui/text-field';
import { UserText } from '@/components/ui/user-text';
import { errorMessage } from '@/lib/api/api-error';
import type { Environment, VirtualAccount } from '@/lib/api/partner-types';
import { fieldErrorSentences, validationMessage } from '@/lib/validation-message';
import { existingAccount, type NewAccount, useCreateAccount } from '../api/accounts';

const LABELS = {
  first_name: 'First name',
  last_name: 'Last name',
  email: 'E-mail address',
  phone: 'Phone number',
  bvn: 'BVN',
};

export interface CreateAccountDialogProps {
  isOpen: boolean;
  onOpenChange: (isOpen: boolean) => void;
  environment: Environment;
  onCreated: (account: VirtualAccount) => void;
}

/** Issues a dedicated account number to one of the partner's customers (one per e-mail and environment). */
export function CreateAccountDialog({
  isOpen,
  onOpenChange,
  environment,
  onCreated,
}: CreateAccountDialogProps) {
  const create = useCreateAccount();
  const [attempt, setAttempt] = useState(() => crypto.randomUUID());
  const [serverErrors, setServerErrors] = useState<Record<string, string[]>>({});
  const close = (open: boolean) => {
    if (!open) {
      create.reset();
      setServerErrors({});
      setAttempt(crypto.randomUUID());
    }
    onOpenChange(open);
  };
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const value = (name: string) => String(form.get(name) ?? '').trim();
    const body: NewAccount = {
      first_name: value('first_name'),
      last_name: value('last_name'),
      email: value('email'),
      phone: value('phone'),
      ...(value('bvn') ? { bvn: value('bvn') } : {}),
    };
    setServerErrors({});
    create.mutate(
      { body, attempt },
      {
        onSuccess: (account) => {
          setAttempt(crypto.randomUUID());
          onCreated(account);
        },
        onError: (error) => {
          // The server answered: a corrected form is a new attempt (its body differs). A lost answer
          // (network error) keeps the key, so trying again cannot issue a second account.
          if (!(error instanceof ApiError)) return;
          setAttempt(crypto.randomUUID());
          setServerErrors(fieldErrorSentences(error.errors, LABELS));
        },
      },
    );
  };
  const error = create.error;
  const existing = existingAccount(error);
  const otherError = error && !(error instanceof ApiError && Object.keys(error.errors).length > 0);

  return (
    <ModalDialog
      title={environment === 'live' ? 'Create a live account' : 'Create a sandbox account'}
      isOpen={isOpen}
      onOpenChange={close}
    >
      {(closeDialog) => (
        <Form className="dialog__body" onSubmit={submit} validationErrors={serverErrors}>
          <p className="muted">
            {environment === 'live'
              ? 'A real bank account number for your customer. Money sent to it is credited to them.'
              : 'A test account number: credit it with simulated transfers.'}
          </p>
          <TextField
            name="first_name"
            label={LABELS.first_name}
            maxLength={100}
            isRequired
            autoFocus
            errorMessage={validationMessage("Enter the customer's first name.")}
          />
          <TextField
            name="last_name"
            label={LABELS.last_name}
            maxLength={100}
            isRequired
            errorMessage={validationMessage("Enter the customer's last name.")}
          />
          <TextField
            name="email"
            type="email"
            label={LABELS.email}
            description="One account per customer e-mail in each environment."
            isRequired
            errorMessage={validationMessage(
              "Enter the customer's e-mail address.",
              'Enter an e-mail address like name@example.com.',
            )}
          />
          <TextField
            name="phone"
            type="tel"
            label={LABELS.phone}
            minLength={7}
            maxLength={20}
            pattern="[0-9+\(\) \-]+"
            isRequired
            errorMessage={validationMessage(
              "Enter the customer's phone number.",
              'Enter a phone number such as 0803 123 4567, or +44 20 7946 0958 abroad.',
            )}
          />
          <TextField
            name="bvn"
            label={`${LABELS.bvn} (optional)`}
            inputMode="numeric"
            autoComplete="off"
            pattern="[0-9]{11}"
            maxLength={11}
            description="The customer's BVN, 11 digits; stored encrypted."
            errorMessage={validationMessage('', 'A BVN has exactly 11 digits.')}
          />
          {existing ? (
            <Alert tone="warning" title="This customer already has an account here.">
              <p>
                <UserText>{existing.account_name}</UserText> has account{' '}
                <Link href={`/accounts/${existing.account_number}`}>{existing.account_number}</Link>.
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
            <Button type="submit" isPending={create.isPending}>
              {create.isPending ? 'Creating…' : 'Create account'}
            </Button>
          </div>
        </Form>
      )}
    </ModalDialog>
  );
}
