import { ApiError } from '@baas/sdk';
import { type FormEvent, useId, useState } from 'react';
import { Form } from 'react-aria-components';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { DateField } from '@/components/ui/date-field';
import { errorMessage } from '@/lib/api/api-error';
import { validationMessage } from '@/lib/validation-message';
import { useDownloadStatement } from '../api/accounts';

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

/** A statement of whole days (UTC, at most 366) as a CSV file. */
export function StatementDownload({ accountNumber }: { accountNumber: string }) {
  const download = useDownloadStatement(accountNumber);
  const headingId = useId();
  const today = new Date();
  const [from, setFrom] = useState(
    isoDay(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1))),
  );
  const [to, setTo] = useState(isoDay(today));

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    download.mutate({ from, to });
  };
  const fieldErrors =
    download.error instanceof ApiError ? Object.values(download.error.errors).flat().join(' ') : '';

  return (
    <Card labelledBy={headingId} className="account__section">
      <h2 id={headingId}>Statement</h2>
      <p className="muted">
        Every entry of a period as a CSV file for your spreadsheet or accounting system: one row an entry,
        with its kind, narration, counterparty and session ID, the amount under debit or credit, and the
        balance after it. There is no opening or closing balance row: the last row's balance is the closing
        one. Days are in UTC; a period is at most 366 days.
      </p>
      <Form className="account__statement-form" onSubmit={submit}>
        <DateField
          name="from"
          label="From"
          value={from}
          onChange={setFrom}
          isRequired
          errorMessage={validationMessage('Choose the first day.')}
        />
        <DateField
          name="to"
          label="To"
          value={to}
          onChange={setTo}
          isRequired
          validate={(value) =>
            value && from && value < from ? 'The last day cannot be before the first.' : null
          }
          errorMessage={validationMessage('Choose the last day.')}
        />
        <Button type="submit" variant="secondary" isPending={download.isPending}>
          {download.isPending ? 'Preparing…' : 'Download CSV'}
        </Button>
      </Form>
      <p role="status" className="account__download-status">
        {download.isSuccess ? `Saved ${download.data}.` : ''}
      </p>
      {download.error ? (
        <Alert tone="error" title="The statement could not be downloaded.">
          <p>{fieldErrors || errorMessage(download.error)}</p>
        </Alert>
      ) : null}
    </Card>
  );
}
