import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Cell, Column, Form, Row, TableBody, TableHeader } from 'react-aria-components';
import { useSearchParams } from 'react-router';
import { Button } from '@/components/ui/button';
import { DateField } from '@/components/ui/date-field';
import { PageHeader } from '@/components/ui/page-header';
import { QueryView } from '@/components/ui/query-view';
import { RadioGroupField } from '@/components/ui/radio-group-field';
import { CellLabel, DataTable } from '@/components/ui/table';
import type { DailyReport, Environment } from '@/lib/api/operator-types';
import { formatDate } from '@/lib/format';
import { formatNaira } from '@/lib/money';
import { validationMessage } from '@/lib/validation-message';
import { dailyReportQuery } from '../api/daily-report';
import './daily-report.css';

const STATUS_ROWS = [
  { status: 'pending', label: 'Pending', note: 'Accepted; amount and fee held.' },
  { status: 'processing', label: 'Processing', note: 'Handed to the bank; its answer is awaited.' },
  { status: 'successful', label: 'Successful', note: 'Debited: amount and fee.' },
  { status: 'failed', label: 'Failed', note: 'Nothing debited; the hold released.' },
  { status: 'reversed', label: 'Reversed', note: 'Returned by the bank after success; the fee kept.' },
] as const;

const ENVIRONMENT_OPTIONS = [
  { id: 'live', label: 'Live' },
  { id: 'sandbox', label: 'Sandbox' },
];

const todayUtc = () => new Date().toISOString().slice(0, 10);

const isDay = (date: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(date) && !Number.isNaN(Date.parse(`${date}T00:00:00Z`));

/** ?date=YYYY-MM-DD when it names a real day, else today (UTC); ?environment=sandbox, else live. */
function reportFrom(params: URLSearchParams): { date: string; environment: Environment } {
  const date = params.get('date') ?? '';
  return {
    date: isDay(date) ? date : todayUtc(),
    environment: params.get('environment') === 'sandbox' ? 'sandbox' : 'live',
  };
}

/**
 * One UTC day's money of one environment: the credits that came in, the transfers created that day by
 * their status now, the fees taken and every account's balance at the day's end, to reconcile with
 * the sponsor bank's statement of the settlement account.
 */
export function DailyReportPage() {
  const [searchParams, setSearchParams] = useSearchParams();
  const { date, environment } = reportFrom(searchParams);
  const report = useQuery(dailyReportQuery(date, environment));
  const show = (next: { date: string; environment: Environment }) => {
    const params = new URLSearchParams();
    if (next.date !== todayUtc()) params.set('date', next.date);
    if (next.environment !== 'live') params.set('environment', next.environment);
    setSearchParams(params);
  };

  return (
    <div className="daily-report">
      <title>Daily report · Operator console</title>
      <PageHeader
        title="Daily report"
        description="One day (UTC) of one environment's money: what came in, what went out, the fees and the balances at the day's end."
      />
      <ReportForm key={`${date} ${environment}`} date={date} environment={environment} onShow={show} />
      <QueryView
        query={report}
        loading="Loading the report…"
        errorTitle="The report could not be loaded."
        canRetry
      >
        {(data) => <Report report={data} />}
      </QueryView>
    </div>
  );
}

function ReportForm({
  date,
  environment,
  onShow,
}: {
  date: string;
  environment: Environment;
  onShow: (next: { date: string; environment: Environment }) => void;
}) {
  const [value, setValue] = useState(date);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (isDay(value)) onShow({ date: value, environment });
  };
  return (
    <Form className="daily-report__form" onSubmit={submit} aria-label="Choose the report">
      <DateField
        name="date"
        label="Day (UTC)"
        value={value}
        onChange={setValue}
        isRequired
        errorMessage={validationMessage('Choose a day.')}
      />
      <Button type="submit" variant="secondary">
        Show report
      </Button>
      <RadioGroupField
        label="Environment"
        name="environment"
        options={ENVIRONMENT_OPTIONS}
        value={environment}
        // A switch: the report follows at once, for the day chosen (or the one shown).
        onChange={(next) =>
          onShow({ date: isDay(value) ? value : date, environment: next === 'sandbox' ? 'sandbox' : 'live' })
        }
      />
    </Form>
  );
}

function Report({ report }: { report: DailyReport }) {
  const rows = STATUS_ROWS.map((row) => ({ ...row, ...report.transfers[row.status] }));
  const total = rows.reduce(
    (sum, row) => ({ count: sum.count + row.count, amount: sum.amount + row.amount_kobo }),
    {
      count: 0,
      amount: 0,
    },
  );
  const environment = report.environment === 'live' ? 'Live' : 'Sandbox';
  return (
    <section className="daily-report__report" aria-labelledby="daily-report-title">
      <h2 id="daily-report-title" className="daily-report__title">
        {`${environment}, ${formatDate(report.date)} (UTC)`}
      </h2>
      <p className="daily-report__reconcile">
        The balances at the day's end are what the partners' accounts hold together: reconcile them, with the
        day's inbound credits, successful transfers and fees, against the sponsor bank's statement of the
        settlement account for {formatDate(report.date)}.
      </p>
      <dl className="daily-report__figures">
        <div className="daily-report__figure">
          <dt>Money in</dt>
          <dd>
            <span className="daily-report__amount">{formatNaira(report.inbound.amount_kobo)}</span>
            <span className="daily-report__count">
              {report.inbound.count === 1 ? '1 credit' : `${report.inbound.count} credits`}
            </span>
          </dd>
        </div>
        <div className="daily-report__figure">
          <dt>Fees</dt>
          <dd>
            <span className="daily-report__amount">{formatNaira(report.fees_kobo)}</span>
            <span className="daily-report__count">Debited that day</span>
          </dd>
        </div>
        <div className="daily-report__figure daily-report__figure--balance">
          <dt>Balances at day end</dt>
          <dd>
            <span className="daily-report__amount">{formatNaira(report.balances_kobo)}</span>
            <span className="daily-report__count">Every account, summed</span>
          </dd>
        </div>
      </dl>
      <h3 className="daily-report__subtitle" id="daily-report-transfers">
        Transfers created that day, by their status now
      </h3>
      <div className="daily-report__transfers">
        <DataTable aria-labelledby="daily-report-transfers" className="daily-report__table">
          <TableHeader>
            <Column isRowHeader>Status</Column>
            <Column className="daily-report__number">Count</Column>
            <Column className="daily-report__number">Amount</Column>
          </TableHeader>
          <TableBody
            items={[
              ...rows,
              {
                status: 'total' as const,
                label: 'Total',
                note: '',
                count: total.count,
                amount_kobo: total.amount,
              },
            ]}
          >
            {(row) => (
              <Row id={row.status} className={row.status === 'total' ? 'daily-report__total' : undefined}>
                <Cell>
                  <span className="daily-report__status">{row.label}</span>
                  {row.note ? <span className="data-table__secondary">{row.note}</span> : null}
                </Cell>
                <Cell>
                  <CellLabel>Count</CellLabel>
                  {row.count}
                </Cell>
                <Cell>
                  <CellLabel>Amount</CellLabel>
                  <span className="daily-report__money">{formatNaira(row.amount_kobo)}</span>
                </Cell>
              </Row>
            )}
          </TableBody>
        </DataTable>
      </div>
    </section>
  );
}
