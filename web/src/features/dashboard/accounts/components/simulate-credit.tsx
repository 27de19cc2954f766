import { ApiError } from '@baas/sdk';
import { type FormEvent, useId, useState } from 'react';
import { Form } from 'react-aria-components';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { TextField } from '@/components/ui/text-field';
import { errorMessage } from '@/lib/api/api-error';
import type { Credit, VirtualAccount } from '@/lib/api/partner-types';
import { formatNaira, parseNairaInput } from '@/lib/money';
import { fieldErrorSentences, validationMessage } from '@/lib/validation-message';
import { useSimulateCredit } from '../api/accounts';

/** Sandbox only: a transfer to the account as if a customer had sent it, with its webhook. */
export function SimulateCredit({ account }: { account: VirtualAccount }) {
  const credit = useSimulateCredit(account.account_number);
  const headingId = useId();
  const [attempt, setAttempt] = useState(() => crypto.randomUUID());
  const [amount, setAmount] = useState('');
  const [serverErrors, setServerErrors] = useState<Record<string, string[]>>({});
  const [done, setDone] = useState<Credit | null>(null);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const naira = parseNairaInput(amount);
    if (!naira) return;
    const narration = String(new FormData(event.currentTarget).get('narration') ?? '').trim();
    setServerErrors({});
    setDone(null);
    credit.mutate(
      { amount: naira, ...(narration ? { narration } : {}), attempt },
      {
        onSuccess: (result) => {
          setDone(result);
          setAmount('');
          setAttempt(crypto.randomUUID());
        },
        onError: (error) => {
          if (!(error instanceof ApiError)) return;
          setAttempt(crypto.randomUUID());
          setServerErrors(
            fieldErrorSentences(error.errors, { amount: 'The amount', narration: 'The narration' }),
          );
        },
      },
    );
  };
  const otherError =
    credit.error && !(credit.error instanceof ApiError && Object.keys(credit.error.errors).length > 0);

  return (
    <Card labelledBy={headingId} className="account__section">
      <h2 id={headingId}>Simulate a credit</h2>
      <p className="muted">
        Sandbox only: send test money to this account as if a customer had made a transfer. It shows in the
        transactions and triggers a virtual_account.credited webhook.
      </p>
      <Form className="account__credit-form" onSubmit={submit} validationErrors={serverErrors}>
        <TextField
          name="amount"
          label="Amount (₦)"
          inputMode="decimal"
          placeholder="1,500.50"
          value={amount}
          onChange={setAmount}
          isRequired
          isDisabled={account.status !== 'active'}
          description="Up to ₦10,000,000.00, with at most 2 decimals."
          validate={(value) =>
            value && !parseNairaInput(value) ? 'Enter an amount in naira, like 1500.50.' : null
          }
          errorMessage={validationMessage('Enter an amount.')}
        />
        <TextField
          name="narration"
          label="Narration (optional)"
          maxLength={255}
          isDisabled={account.status !== 'active'}
          placeholder="Test transfer"
        />
        <div className="form-actions">
          <Button type="submit" isPending={credit.isPending} isDisabled={account.status !== 'active'}>
            {credit.isPending ? 'Crediting…' : 'Credit account'}
          </Button>
        </div>
      </Form>
      {done ? (
        <Alert tone="success">
          <p>
            {formatNaira(done.transaction.amount_kobo)} credited. New balance:{' '}
            {formatNaira(done.account.balance_kobo)}.
          </p>
        </Alert>
      ) : null}
      {otherError ? (
        <Alert tone="error">
          <p>{errorMessage(credit.error)}</p>
        </Alert>
      ) : null}
    </Card>
  );
}
