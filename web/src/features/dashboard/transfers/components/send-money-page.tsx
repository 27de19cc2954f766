import { ApiError } from '@baas/sdk';
import { type UseQueryResult, useQuery } from '@tanstack/react-query';
import { type FormEvent, type KeyboardEvent, useEffect, useId, useMemo, useRef, useState } from 'react';
import { Form, Link } from 'react-aria-components';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { ComboBoxField } from '@/components/ui/combo-box-field';
import { DetailList } from '@/components/ui/detail-list';
import { Loading } from '@/components/ui/loading';
import { PageHeader } from '@/components/ui/page-header';
import { QueryError, QueryView } from '@/components/ui/query-view';
import { TextField } from '@/components/ui/text-field';
import { UserText } from '@/components/ui/user-text';
import { describeWait, errorMessage, retryAfterSeconds } from '@/lib/api/api-error';
import type { CreateTransferBody, NameEnquiry, Transfer, VirtualAccount } from '@/lib/api/partner-types';
import { formatNaira, parseNairaInput } from '@/lib/money';
import { validationMessage } from '@/lib/validation-message';
import { banksQuery, useCreateTransfer, useNameEnquiry } from '../api/transfers';
import { koboOf, transferFeeKobo } from '../fees';
import { TransferProgress } from './transfer-progress';
import './transfers.css';

export interface SendMoneyPageProps {
  accountNumber: string;
  /** The source account (the accounts feature's query, which the route reads). */
  account: UseQueryResult<VirtualAccount>;
}

/** Send money from one virtual account: beneficiary and name enquiry, amount and fee, review, progress. */
export function SendMoneyPage({ accountNumber, account }: SendMoneyPageProps) {
  const back = (
    <Link href={`/accounts/${accountNumber}`} className="transfers__back">
      ← Account {accountNumber}
    </Link>
  );
  return (
    <div className="send-money">
      <title>{`Send money from ${accountNumber} · Partner dashboard`}</title>
      <PageHeader title="Send money" eyebrow={back} />
      <QueryView
        query={account}
        loading={<Loading label="Loading the account…" />}
        renderError={(error) =>
          error instanceof ApiError && error.status === 404 ? (
            <Alert tone="warning" title="No such account here.">
              <p>{`There is no account ${accountNumber} in this environment.`}</p>
            </Alert>
          ) : (
            <QueryError
              error={error}
              title="The account could not be loaded."
              onRetry={() => account.refetch()}
            />
          )
        }
      >
        {(data) => <SendMoney account={data} />}
      </QueryView>
    </div>
  );
}

/** Why money cannot leave this account now, or null. */
export function cannotSendReason(account: VirtualAccount): string | null {
  if (account.status === 'closed') return 'The account is closed.';
  if (account.status !== 'active') return 'The account is inactive: reactivate it to send money.';
  if (account.available_balance_kobo <= 0) return 'There is no available balance to send.';
  return null;
}

interface Draft {
  bankCode: string | null;
  accountNumber: string;
  amount: string;
  narration: string;
}

type Step =
  | { name: 'details' }
  | { name: 'review'; beneficiary: NameEnquiry; attempt: string; reference: string }
  | { name: 'sent'; transfer: Transfer };

const EMPTY: Draft = { bankCode: null, accountNumber: '', amount: '', narration: '' };

function SendMoney({ account }: { account: VirtualAccount }) {
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [step, setStep] = useState<Step>({ name: 'details' });
  const enquiry = useNameEnquiry();
  const send = useCreateTransfer();
  const stepHeading = useRef<HTMLHeadingElement>(null);
  const firstStep = useRef(true);

  // Each step starts with its heading focused, so the keyboard and a screen reader go on from there.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the step changes.
  useEffect(() => {
    if (firstStep.current) {
      firstStep.current = false;
      return;
    }
    stepHeading.current?.focus();
  }, [step.name]);

  const reason = cannotSendReason(account);
  if (reason && step.name === 'details') {
    return (
      <Alert tone="warning" title="Money cannot be sent from this account now.">
        <p>{reason}</p>
      </Alert>
    );
  }

  // The name confirmed belongs to the bank and number it was asked for, and to nothing typed since.
  const confirmed =
    enquiry.data &&
    enquiry.variables?.bank_code === draft.bankCode &&
    enquiry.variables?.account_number === draft.accountNumber
      ? enquiry.data
      : null;

  if (step.name === 'sent') {
    return (
      <TransferProgress
        transfer={step.transfer}
        headingRef={stepHeading}
        onSendAnother={() => {
          enquiry.reset();
          send.reset();
          setDraft(EMPTY);
          setStep({ name: 'details' });
        }}
      />
    );
  }
  if (step.name === 'review') {
    return (
      <Review
        account={account}
        draft={draft}
        beneficiary={step.beneficiary}
        headingRef={stepHeading}
        isPending={send.isPending}
        error={send.error}
        onBack={() => {
          send.reset();
          setStep({ name: 'details' });
        }}
        onSend={() => {
          const naira = parseNairaInput(draft.amount) ?? draft.amount;
          const narration = draft.narration.trim();
          const body: CreateTransferBody = {
            source_account_number: account.account_number,
            amount: naira,
            bank_code: step.beneficiary.bank_code,
            account_number: step.beneficiary.account_number,
            reference: step.reference,
            name_enquiry_ref: step.beneficiary.name_enquiry_ref,
            ...(narration ? { narration } : {}),
          };
          send.mutate(
            { body, attempt: step.attempt },
            {
              onSuccess: (transfer) => setStep({ name: 'sent', transfer }),
              onError: (error) => {
                // Our own reference already taken: an earlier press of this review that went through.
                if (error instanceof ApiError && error.errorCode === 'DUPLICATE_REFERENCE' && error.data) {
                  setStep({ name: 'sent', transfer: error.data as Transfer });
                }
              },
            },
          );
        }}
      />
    );
  }
  return (
    <Details
      account={account}
      draft={draft}
      onDraft={(change) => {
        if ('bankCode' in change || 'accountNumber' in change) enquiry.reset();
        setDraft((now) => ({ ...now, ...change }));
      }}
      confirmed={confirmed}
      enquiry={enquiry}
      headingRef={stepHeading}
      onReview={(beneficiary) => {
        const id = crypto.randomUUID();
        setStep({ name: 'review', beneficiary, attempt: id, reference: `dash-${id}` });
      }}
    />
  );
}

function Details({
  account,
  draft,
  onDraft,
  confirmed,
  enquiry,
  headingRef,
  onReview,
}: {
  account: VirtualAccount;
  draft: Draft;
  onDraft: (change: Partial<Draft>) => void;
  confirmed: NameEnquiry | null;
  enquiry: ReturnType<typeof useNameEnquiry>;
  headingRef: React.RefObject<HTMLHeadingElement | null>;
  onReview: (beneficiary: NameEnquiry) => void;
}) {
  const banks = useQuery(banksQuery());
  const beneficiaryId = useId();
  const amountId = useId();
  const verifyId = useId();
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});

  const bankOptions = useMemo(
    () => (banks.data ?? []).map((bank) => ({ id: bank.code, label: bank.name })),
    [banks.data],
  );
  const bankName = banks.data?.find((bank) => bank.code === draft.bankCode)?.name;
  const isBook = draft.bankCode === account.bank_code;
  const naira = parseNairaInput(draft.amount);
  const amountKobo = naira ? koboOf(naira) : null;
  const feeKobo = amountKobo !== null ? transferFeeKobo(amountKobo, isBook) : null;
  const totalKobo = amountKobo !== null && feeKobo !== null ? amountKobo + feeKobo : null;

  const clearError = (name: string) =>
    setFieldErrors((now) => {
      if (!(name in now)) return now;
      const { [name]: _, ...rest } = now;
      return rest;
    });

  const verify = () => {
    const errors: Record<string, string> = {};
    if (!draft.bankCode) errors['bank_code'] = 'Choose the bank.';
    if (!/^\d{10}$/.test(draft.accountNumber)) errors['account_number'] = 'An account number is 10 digits.';
    setFieldErrors(errors);
    if (!draft.bankCode || Object.keys(errors).length > 0) return;
    enquiry.mutate({ bank_code: draft.bankCode, account_number: draft.accountNumber });
  };

  const demandVerify = () => {
    setFieldErrors({ account_number: 'Verify the account first: press "Verify account".' });
    document.getElementById(verifyId)?.focus();
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!confirmed) return demandVerify();
    if (naira) onReview(confirmed);
  };

  return (
    <Form
      className="send-money__form"
      onSubmit={submit}
      validationErrors={fieldErrors}
      aria-labelledby={beneficiaryId}
    >
      <Card labelledBy={beneficiaryId} className="send-money__card">
        <h2 id={beneficiaryId} ref={headingRef} tabIndex={-1}>
          Who receives it
        </h2>
        <p className="muted">
          From <strong>{account.account_number}</strong> (<UserText>{account.account_name}</UserText>):
          available {formatNaira(account.available_balance_kobo)}.
        </p>
        {banks.isError ? (
          <QueryError
            error={banks.error}
            title="The banks could not be loaded."
            onRetry={() => banks.refetch()}
          />
        ) : null}
        <div className="send-money__beneficiary">
          <ComboBoxField
            label="Bank"
            name="bank_code"
            options={bankOptions}
            value={draft.bankCode}
            onChange={(code) => {
              clearError('bank_code');
              onDraft({ bankCode: code });
            }}
            isRequired
            placeholder={banks.isPending ? 'Loading banks…' : 'Type to search'}
            emptyText="No bank has that name."
            {...(fieldErrors['bank_code'] ? { errorMessage: fieldErrors['bank_code'] } : {})}
          />
          <TextField
            name="account_number"
            label="Account number"
            inputMode="numeric"
            autoComplete="off"
            maxLength={10}
            value={draft.accountNumber}
            onChange={(value) => {
              clearError('account_number');
              onDraft({ accountNumber: value.trim() });
            }}
            onKeyDown={(event: KeyboardEvent) => {
              // Enter in the number asks the bank, rather than submitting the whole form.
              if (event.key === 'Enter' && !confirmed) {
                event.preventDefault();
                verify();
              }
            }}
            description="10 digits."
            isRequired
            errorMessage={validationMessage('Enter the account number.')}
          />
          <div className="send-money__verify">
            <Button id={verifyId} variant="secondary" isPending={enquiry.isPending} onPress={verify}>
              {enquiry.isPending ? 'Verifying…' : 'Verify account'}
            </Button>
          </div>
        </div>
        <EnquiryResult
          confirmed={confirmed}
          error={enquiry.error}
          bankName={bankName}
          accountNumber={draft.accountNumber}
          isBook={isBook}
          onRetry={verify}
        />
      </Card>
      <Card labelledBy={amountId} className="send-money__card">
        <h2 id={amountId}>How much</h2>
        <div className="send-money__amount">
          <TextField
            name="amount"
            label="Amount (₦)"
            inputMode="decimal"
            autoComplete="off"
            placeholder="1,500.50"
            value={draft.amount}
            onChange={(amount) => onDraft({ amount })}
            isRequired
            description="Up to ₦10,000,000.00, with at most 2 decimals. The fee comes on top."
            validate={(value) => {
              if (!value) return null;
              const parsed = parseNairaInput(value);
              if (!parsed || koboOf(parsed) <= 0 || koboOf(parsed) > 1_000_000_000) {
                return 'Enter an amount in naira, like 1500.50, up to ₦10,000,000.00.';
              }
              const total = koboOf(parsed) + transferFeeKobo(koboOf(parsed), isBook);
              return total > account.available_balance_kobo
                ? `With the fee it is ${formatNaira(total)}: more than the available ${formatNaira(account.available_balance_kobo)}.`
                : null;
            }}
            errorMessage={validationMessage('Enter an amount.')}
          />
          <TextField
            name="narration"
            label="Narration (optional)"
            maxLength={100}
            value={draft.narration}
            onChange={(narration) => onDraft({ narration })}
            description="Shown to the beneficiary."
          />
        </div>
        <dl className="send-money__sum" aria-label="Cost">
          <div>
            <dt>Amount</dt>
            <dd>{amountKobo !== null ? formatNaira(amountKobo) : '—'}</dd>
          </div>
          <div>
            <dt>{isBook ? 'Fee (book transfer, free)' : 'Fee (NIP, VAT included)'}</dt>
            <dd>{feeKobo !== null ? formatNaira(feeKobo) : '—'}</dd>
          </div>
          <div className="send-money__total">
            <dt>Total debited</dt>
            <dd>{totalKobo !== null ? formatNaira(totalKobo) : '—'}</dd>
          </div>
        </dl>
        <div className="form-actions">
          {/* Until the name is confirmed, nothing else is worth checking: the amount's errors wait. */}
          {confirmed ? (
            <Button type="submit">Review transfer</Button>
          ) : (
            <Button onPress={demandVerify}>Review transfer</Button>
          )}
        </div>
      </Card>
    </Form>
  );
}

function EnquiryResult({
  confirmed,
  error,
  bankName,
  accountNumber,
  isBook,
  onRetry,
}: {
  confirmed: NameEnquiry | null;
  error: Error | null;
  bankName: string | undefined;
  accountNumber: string;
  isBook: boolean;
  onRetry: () => void;
}) {
  if (confirmed) {
    return (
      <div className="send-money__confirmed" role="status">
        <p className="send-money__name">
          <UserText>{confirmed.account_name}</UserText>
          <span className="send-money__at"> at </span>
          <UserText>{confirmed.bank_name}</UserText>
        </p>
        <p className="muted">
          Account {confirmed.account_number}
          {isBook ? ' · an account of this bank: a free book transfer, credited at once.' : '.'} Check that
          this is who you mean to pay.
        </p>
      </div>
    );
  }
  if (!error) return null;
  const bank = bankName ?? 'the bank';
  if (error instanceof ApiError && error.errorCode === 'BENEFICIARY_NOT_FOUND') {
    return (
      <Alert tone="error" title="Account not found.">
        <p>{`${bank} has no account ${accountNumber}. Check the number and the bank.`}</p>
      </Alert>
    );
  }
  if (error instanceof ApiError && error.errorCode === 'BANK_UNAVAILABLE') {
    const wait = retryAfterSeconds(error);
    return (
      <Alert tone="warning" title={`${bank} cannot be reached right now.`}>
        <p>
          {wait !== null
            ? `Try again in ${describeWait(wait)}. Nothing has been sent.`
            : 'Try again in a moment. Nothing has been sent.'}
        </p>
        <Button variant="secondary" size="small" onPress={onRetry}>
          Try again
        </Button>
      </Alert>
    );
  }
  return (
    <Alert tone="error" title="The account could not be verified.">
      <p>
        {error instanceof ApiError && error.errorCode === 'VALIDATION_FAILED'
          ? Object.values(error.errors).flat().join(' ') || errorMessage(error)
          : errorMessage(error)}
      </p>
    </Alert>
  );
}

function Review({
  account,
  draft,
  beneficiary,
  headingRef,
  isPending,
  error,
  onBack,
  onSend,
}: {
  account: VirtualAccount;
  draft: Draft;
  beneficiary: NameEnquiry;
  headingRef: React.RefObject<HTMLHeadingElement | null>;
  isPending: boolean;
  error: Error | null;
  onBack: () => void;
  onSend: () => void;
}) {
  const headingId = useId();
  const amountKobo = koboOf(parseNairaInput(draft.amount) ?? '0');
  const isBook = beneficiary.bank_code === account.bank_code;
  const feeKobo = transferFeeKobo(amountKobo, isBook);
  const narration = draft.narration.trim();

  return (
    <Card labelledBy={headingId} className="send-money__card send-money__review">
      <h2 id={headingId} ref={headingRef} tabIndex={-1}>
        Check and send
      </h2>
      <p className="send-money__name">
        {formatNaira(amountKobo)} to <UserText>{beneficiary.account_name}</UserText>
      </p>
      <DetailList
        items={[
          {
            term: 'To',
            value: (
              <>
                <UserText>{beneficiary.account_name}</UserText>
                {' · '}
                <UserText>{beneficiary.bank_name}</UserText>
                {' · '}
                <span className="transfers__number">{beneficiary.account_number}</span>
              </>
            ),
          },
          {
            term: 'From',
            value: (
              <>
                <span className="transfers__number">{account.account_number}</span>
                {' · '}
                <UserText>{account.account_name}</UserText>
              </>
            ),
          },
          { term: 'Amount', value: formatNaira(amountKobo) },
          {
            term: 'Fee',
            value: isBook
              ? `${formatNaira(0)} (book transfer)`
              : `${formatNaira(feeKobo)} (NIP, VAT included)`,
          },
          { term: 'Total debited', value: <strong>{formatNaira(amountKobo + feeKobo)}</strong> },
          { term: 'Narration', value: narration ? <UserText>{narration}</UserText> : null },
          {
            term: 'Available after',
            value: formatNaira(account.available_balance_kobo - amountKobo - feeKobo),
          },
        ]}
      />
      {error ? <SendError error={error} /> : null}
      <div className="form-actions send-money__review-actions">
        <Button variant="secondary" onPress={onBack} isDisabled={isPending}>
          Back to edit
        </Button>
        <Button isPending={isPending} onPress={onSend}>
          {isPending ? 'Sending…' : `Send ${formatNaira(amountKobo)}`}
        </Button>
      </div>
    </Card>
  );
}

const SEND_ERRORS: Record<string, string> = {
  INSUFFICIENT_FUNDS: 'The available balance does not cover the amount and the fee. Nothing was sent.',
  ACCOUNT_INACTIVE: 'The account is inactive now. Nothing was sent.',
  ACCOUNT_CLOSED: 'The account is closed. Nothing was sent.',
  BENEFICIARY_NOT_FOUND: 'The bank no longer knows this account. Nothing was sent.',
};

function SendError({ error }: { error: Error }) {
  if (error instanceof ApiError && error.errorCode === 'DUPLICATE_REFERENCE') return null;
  if (error instanceof ApiError && error.errorCode === 'BANK_UNAVAILABLE') {
    const wait = retryAfterSeconds(error);
    return (
      <Alert tone="warning" title="The bank cannot be reached right now.">
        <p>{`Nothing was sent. Send again ${wait !== null ? `in ${describeWait(wait)}` : 'in a moment'}: it goes once, however often you press.`}</p>
      </Alert>
    );
  }
  const known = error instanceof ApiError && error.errorCode ? SEND_ERRORS[error.errorCode] : undefined;
  const message =
    known ??
    (error instanceof ApiError && error.errorCode === 'VALIDATION_FAILED'
      ? Object.values(error.errors).flat().join(' ') || errorMessage(error)
      : errorMessage(error));
  return (
    <Alert tone="error" title="The transfer was not sent.">
      <p>{message}</p>
      {error instanceof ApiError ? null : (
        <p>Send again: the same transfer goes once, however often you press.</p>
      )}
    </Alert>
  );
}
