import { ApiError } from '@baas/sdk';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { Form } from 'react-aria-components';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { DetailList } from '@/components/ui/detail-list';
import { TextField } from '@/components/ui/text-field';
import { UserText } from '@/components/ui/user-text';
import { errorMessage } from '@/lib/api/api-error';
import type { SimulateCreditBody, VirtualAccount } from '@/lib/api/partner-types';
import { formatNaira, parseNairaInput } from '@/lib/money';
import { fieldErrorSentences, validationMessage } from '@/lib/validation-message';
import { type SimulatedCredit, useSimulateCredit } from '../api/accounts';

/** The Advanced fields, named as the API names them so its 422 `errors` land on them. */
const ORIGINATOR_FIELDS = {
  name: 'originator.account_name',
  accountNumber: 'originator.account_number',
  bankCode: 'originator.bank_code',
  bankName: 'originator.bank_name',
} as const;

const FIELD_LABELS: Record<string, string> = {
  amount: 'The amount',
  narration: 'The narration',
  [ORIGINATOR_FIELDS.name]: "The sender's name",
  [ORIGINATOR_FIELDS.accountNumber]: "The sender's account number",
  [ORIGINATOR_FIELDS.bankCode]: 'The bank code',
  [ORIGINATOR_FIELDS.bankName]: 'The bank name',
  session_id: 'The session ID',
};

interface Advanced {
  name: string;
  accountNumber: string;
  bankCode: string;
  bankName: string;
  sessionId: string;
}

const NO_ADVANCED: Advanced = { name: '', accountNumber: '', bankCode: '', bankName: '', sessionId: '' };

/** Sandbox only: a transfer to the account as if a customer had sent it, with its webhook. */
export function SimulateCredit({ account }: { account: VirtualAccount }) {
  const credit = useSimulateCredit(account.account_number);
  const headingId = useId();
  const [attempt, setAttempt] = useState(() => crypto.randomUUID());
  const [amount, setAmount] = useState('');
  const [narration, setNarration] = useState('');
  const [advanced, setAdvanced] = useState<Advanced>(NO_ADVANCED);
  const [serverErrors, setServerErrors] = useState<Record<string, string[]>>({});
  const [done, setDone] = useState<SimulatedCredit | null>(null);
  const inactive = account.status !== 'active';

  const set = (field: keyof Advanced) => (value: string) =>
    setAdvanced((now) => ({ ...now, [field]: value }));
  const hasOriginator = [advanced.name, advanced.accountNumber, advanced.bankCode, advanced.bankName].some(
    (value) => value.trim() !== '',
  );
  /** The sender is all or nothing: once one of its fields is filled, name, account and bank code are due. */
  const neededForSender = (value: string, what: string) =>
    hasOriginator && value.trim() === '' ? `Give ${what} too, or clear the sender's fields.` : null;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const naira = parseNairaInput(amount);
    if (!naira) return;
    const body: SimulateCreditBody = {
      amount: naira,
      ...(narration.trim() ? { narration: narration.trim() } : {}),
      ...(hasOriginator
        ? {
            originator: {
              account_name: advanced.name.trim(),
              account_number: advanced.accountNumber.trim(),
              bank_code: advanced.bankCode.trim(),
              ...(advanced.bankName.trim() ? { bank_name: advanced.bankName.trim() } : {}),
            },
          }
        : {}),
      ...(advanced.sessionId.trim() ? { session_id: advanced.sessionId.trim() } : {}),
    };
    setServerErrors({});
    setDone(null);
    credit.mutate(
      { body, attempt },
      {
        onSuccess: (result) => {
          setDone(result);
          setAmount('');
          setNarration('');
          // A session ID credits once: the next credit gets a new one unless another is typed.
          setAdvanced((now) => ({ ...now, sessionId: '' }));
          setAttempt(crypto.randomUUID());
        },
        onError: (error) => {
          if (!(error instanceof ApiError)) return;
          setAttempt(crypto.randomUUID());
          setServerErrors(fieldErrorSentences(error.errors, FIELD_LABELS));
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
          isDisabled={inactive}
          description="Up to ₦10,000,000.00, with at most 2 decimals."
          validate={(value) =>
            value && !parseNairaInput(value) ? 'Enter an amount in naira, like 1500.50.' : null
          }
          errorMessage={validationMessage('Enter an amount.')}
        />
        <TextField
          name="narration"
          label="Narration (optional)"
          value={narration}
          onChange={setNarration}
          maxLength={255}
          isDisabled={inactive}
          placeholder="Test transfer"
        />
        <AdvancedFields>
          <p className="muted account__advanced-intro">
            Who sent the money and the transfer's NIBSS session ID, as a bank reports them. Left empty, a
            sandbox sender and a new session ID are used. A session ID already credited is not credited again.
          </p>
          <div className="account__advanced-grid">
            <TextField
              name={ORIGINATOR_FIELDS.name}
              label="Sender's account name"
              maxLength={200}
              isDisabled={inactive}
              value={advanced.name}
              onChange={set('name')}
              validate={(value) => neededForSender(value, "the sender's account name")}
            />
            <TextField
              name={ORIGINATOR_FIELDS.bankName}
              label="Sender's bank name (optional)"
              maxLength={100}
              isDisabled={inactive}
              value={advanced.bankName}
              onChange={set('bankName')}
            />
            <TextField
              name={ORIGINATOR_FIELDS.accountNumber}
              label="Sender's account number"
              inputMode="numeric"
              maxLength={10}
              isDisabled={inactive}
              value={advanced.accountNumber}
              onChange={set('accountNumber')}
              description="10 digits."
              validate={(value) =>
                neededForSender(value, "the sender's account number") ??
                (value.trim() && !/^\d{10}$/.test(value.trim()) ? 'An account number is 10 digits.' : null)
              }
            />
            <TextField
              name={ORIGINATOR_FIELDS.bankCode}
              label="Sender's bank code"
              inputMode="numeric"
              maxLength={6}
              isDisabled={inactive}
              value={advanced.bankCode}
              onChange={set('bankCode')}
              description="3 digits (CBN) or 6 (NIP)."
              validate={(value) =>
                neededForSender(value, "the sender's bank code") ??
                (value.trim() && !/^(\d{3}|\d{6})$/.test(value.trim())
                  ? 'A bank code is 3 or 6 digits.'
                  : null)
              }
            />
            <TextField
              name="session_id"
              label="Session ID (optional)"
              inputMode="numeric"
              maxLength={30}
              isDisabled={inactive}
              value={advanced.sessionId}
              onChange={set('sessionId')}
              description="30 digits; empty: a new one."
              validate={(value) =>
                value.trim() && !/^\d{30}$/.test(value.trim()) ? 'A session ID is 30 digits.' : null
              }
            />
          </div>
        </AdvancedFields>
        <div className="form-actions">
          <Button type="submit" isPending={credit.isPending} isDisabled={inactive}>
            {credit.isPending ? 'Crediting…' : 'Credit account'}
          </Button>
        </div>
      </Form>
      {done ? <CreditResult credit={done} /> : null}
      {otherError ? (
        <Alert tone="error">
          <p>{errorMessage(credit.error)}</p>
        </Alert>
      ) : null}
    </Card>
  );
}

/**
 * A disclosure for the optional fields. It opens by itself when one of them fails the browser's
 * check on submit, since a closed one would hide the field the browser wants to point at.
 */
function AdvancedFields({ children }: { children: React.ReactNode }) {
  const ref = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    const details = ref.current;
    if (!details) return;
    // `invalid` does not bubble: caught on its way down instead.
    const open = () => {
      details.open = true;
    };
    details.addEventListener('invalid', open, true);
    return () => details.removeEventListener('invalid', open, true);
  }, []);
  return (
    <details ref={ref} className="account__advanced">
      <summary>Advanced: sender and session ID</summary>
      {children}
    </details>
  );
}

function CreditResult({ credit }: { credit: SimulatedCredit }) {
  const { transaction, account, alreadyCredited } = credit;
  const sender = transaction.counterparty;
  return (
    <Alert
      tone={alreadyCredited ? 'info' : 'success'}
      title={
        alreadyCredited
          ? `Session ID ${transaction.session_id ?? ''} was already credited: nothing was credited again.`
          : undefined
      }
    >
      <p>
        {alreadyCredited
          ? `This is the earlier credit of ${formatNaira(transaction.amount_kobo)}. Balance: ${formatNaira(account.balance_kobo)}.`
          : `${formatNaira(transaction.amount_kobo)} credited. New balance: ${formatNaira(account.balance_kobo)}.`}
      </p>
      <DetailList
        items={[
          {
            term: 'From',
            value: sender ? (
              <>
                <UserText>{sender.account_name}</UserText>
                {' · '}
                {sender.bank_name ? <UserText>{sender.bank_name}</UserText> : `Bank code ${sender.bank_code}`}
                {' · '}
                <span className="accounts__number">{sender.account_number}</span>
              </>
            ) : null,
          },
          {
            term: 'Session ID',
            value: transaction.session_id ? (
              <code className="transactions-table__id">{transaction.session_id}</code>
            ) : null,
          },
          {
            term: 'Reference',
            value: (
              <code className="accounts__reference">
                <UserText>{transaction.reference}</UserText>
              </code>
            ),
          },
        ]}
      />
    </Alert>
  );
}
