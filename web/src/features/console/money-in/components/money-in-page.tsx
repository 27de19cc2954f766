import { useInfiniteQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Cell, Column, Form, Link, Row, TableBody, TableHeader } from 'react-aria-components';
import { useSearchParams } from 'react-router';
import { Badge, type BadgeTone } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { DateField } from '@/components/ui/date-field';
import { Loading } from '@/components/ui/loading';
import { PageHeader } from '@/components/ui/page-header';
import { QueryView } from '@/components/ui/query-view';
import { CellLabel, DataTable } from '@/components/ui/table';
import { UserText } from '@/components/ui/user-text';
import type { CreditNotification, CreditNotificationOutcome } from '@/lib/api/operator-types';
import { formatDate } from '@/lib/format';
import { formatNaira } from '@/lib/money';
import { validationMessage } from '@/lib/validation-message';
import { creditNotificationsQuery } from '../api/credit-notifications';
import './money-in.css';

const OUTCOMES: Record<CreditNotificationOutcome, { label: string; tone: BadgeTone }> = {
  refused: { label: 'Refused', tone: 'danger' },
  credited: { label: 'Credited', tone: 'success' },
  duplicate: { label: 'Duplicate', tone: 'neutral' },
};

/** Why the bank's credit was refused; a code not listed here shows as it is. */
const ERROR_LABELS: Record<string, string> = {
  NOT_FOUND: 'No such account',
  ACCOUNT_INACTIVE: 'Account inactive',
  ACCOUNT_CLOSED: 'Account closed',
};

const utcTime = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium', timeZone: 'UTC' });

const todayUtc = () => new Date().toISOString().slice(0, 10);

/** ?date=YYYY-MM-DD when it names a real day, else today (UTC). */
function dayFrom(params: URLSearchParams): string {
  const date = params.get('date') ?? '';
  return /^\d{4}-\d{2}-\d{2}$/.test(date) && !Number.isNaN(Date.parse(`${date}T00:00:00Z`))
    ? date
    : todayUtc();
}

/** The unfiltered pages hold the refused ones again: they are on top already. */
const notRefused = (pages: Array<{ items: CreditNotification[] }> | undefined) =>
  (pages ?? []).flatMap((page) => page.items).filter((item) => item.outcome !== 'refused');

/**
 * What the sponsor bank's connector reported on one UTC day, refused notifications first (read to
 * the end before the rest is asked for), so what needs an operator's attention is on top.
 */
export function MoneyInPage() {
  const [searchParams, setSearchParams] = useSearchParams();
  const day = dayFrom(searchParams);
  const refused = useInfiniteQuery(creditNotificationsQuery(day, 'refused'));
  const refusedRead = refused.isSuccess && !refused.hasNextPage;
  const rest = useInfiniteQuery({ ...creditNotificationsQuery(day, 'all'), enabled: refusedRead });

  const refusedItems = refused.data?.pages.flatMap((page) => page.items) ?? [];
  const restItems = notRefused(rest.data?.pages);
  const more = refused.hasNextPage || !rest.isSuccess || rest.hasNextPage;
  const loadMore = refused.hasNextPage
    ? () => refused.fetchNextPage()
    : rest.hasNextPage
      ? async () => {
          // A page of the unfiltered list may hold refused ones only (shown already): read on
          // until the press shows something new.
          let next = await rest.fetchNextPage();
          while (next.hasNextPage && notRefused(next.data?.pages).length === restItems.length) {
            next = await next.fetchNextPage();
          }
        }
      : null;

  return (
    <div className="money-in">
      <title>Money in · Operator console</title>
      <PageHeader
        title="Money in"
        description="Transfers the sponsor bank reported to the partners' live accounts, one day (UTC) at a time: refused ones first, then the rest, newest first."
      />
      <DayForm
        key={day}
        day={day}
        onShow={(next) => setSearchParams(next === todayUtc() ? {} : { date: next })}
      />
      <QueryView
        query={refused}
        loading="Loading the day's notifications…"
        errorTitle="The notifications could not be loaded."
        canRetry
      >
        {() =>
          refusedRead && !rest.isSuccess ? (
            rest.isError ? (
              <QueryView query={rest} loading="" errorTitle="The notifications could not be loaded." canRetry>
                {() => null}
              </QueryView>
            ) : (
              <Loading label="Loading the day's notifications…" />
            )
          ) : (
            <>
              <OutcomeCounts
                day={day}
                counts={{
                  refused: refusedItems.length,
                  credited: restItems.filter((item) => item.outcome === 'credited').length,
                  duplicate: restItems.filter((item) => item.outcome === 'duplicate').length,
                }}
                partial={more}
              />
              <NotificationsTable items={[...refusedItems, ...restItems]} day={day} />
              {loadMore ? (
                <Button
                  variant="secondary"
                  size="small"
                  className="money-in__more"
                  isPending={refused.isFetchingNextPage || rest.isFetchingNextPage}
                  onPress={loadMore}
                >
                  Load more
                </Button>
              ) : null}
            </>
          )
        }
      </QueryView>
    </div>
  );
}

function DayForm({ day, onShow }: { day: string; onShow: (day: string) => void }) {
  const [value, setValue] = useState(day);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (value) onShow(value);
  };
  return (
    <Form className="money-in__day" onSubmit={submit} aria-label="Choose a day">
      <DateField
        name="date"
        label="Day (UTC)"
        value={value}
        onChange={setValue}
        isRequired
        errorMessage={validationMessage('Choose a day.')}
      />
      <Button type="submit" variant="secondary">
        Show day
      </Button>
    </Form>
  );
}

function OutcomeCounts({
  day,
  counts,
  partial,
}: {
  day: string;
  counts: Record<CreditNotificationOutcome, number>;
  partial: boolean;
}) {
  return (
    <section className="money-in__summary" aria-label={`Notifications of ${formatDate(day)}`}>
      <dl className="money-in__counts">
        {(['refused', 'credited', 'duplicate'] as const).map((outcome) => (
          <div key={outcome} className={`money-in__count money-in__count--${outcome}`}>
            <dt>{OUTCOMES[outcome].label}</dt>
            <dd>
              {counts[outcome]}
              {partial ? '+' : ''}
            </dd>
          </div>
        ))}
      </dl>
      {partial ? (
        <p className="money-in__partial">
          Counts of the notifications loaded so far: load more for the rest.
        </p>
      ) : null}
    </section>
  );
}

function NotificationsTable({ items, day }: { items: CreditNotification[]; day: string }) {
  return (
    <DataTable aria-label="Credit notifications" className="money-in__table">
      <TableHeader>
        <Column isRowHeader className="money-in__when">
          Received
        </Column>
        <Column className="money-in__amount-column">Amount</Column>
        <Column>Outcome</Column>
        <Column>Account</Column>
        <Column>Originator</Column>
        <Column>Session ID</Column>
      </TableHeader>
      <TableBody
        items={items}
        renderEmptyState={() => (
          <p className="data-table__empty">{`No credit notification was received on ${formatDate(day)} (UTC).`}</p>
        )}
      >
        {(item) => (
          <Row
            id={item.id}
            textValue={`${OUTCOMES[item.outcome].label} ${formatNaira(item.amount_kobo)} ${item.account_number}`}
          >
            <Cell>
              <time className="money-in__time" dateTime={item.received_at}>
                {utcTime.format(new Date(item.received_at))} UTC
              </time>
            </Cell>
            <Cell>
              <CellLabel>Amount</CellLabel>
              <span className="money-in__amount">{formatNaira(item.amount_kobo)}</span>
            </Cell>
            <Cell>
              <CellLabel>Outcome</CellLabel>
              <Badge tone={OUTCOMES[item.outcome].tone}>{OUTCOMES[item.outcome].label}</Badge>
              {item.error_code ? (
                <span className="data-table__secondary">
                  {ERROR_LABELS[item.error_code] ?? 'Refused'}{' '}
                  <code className="money-in__code">{item.error_code}</code>
                </span>
              ) : null}
            </Cell>
            <Cell>
              <CellLabel>Account</CellLabel>
              <span className="money-in__number">{item.account_number}</span>
              <span className="data-table__secondary">
                {item.company_id === null ? (
                  'Unknown account'
                ) : (
                  <Link href={`/partners/${item.company_id}`}>
                    {item.business_name === null ? (
                      `Company ${item.company_id}`
                    ) : (
                      <UserText>{item.business_name}</UserText>
                    )}
                  </Link>
                )}
              </span>
            </Cell>
            <Cell>
              <CellLabel>Originator</CellLabel>
              <span className="money-in__party">
                <UserText>{item.originator.account_name}</UserText>
              </span>
              <span className="data-table__secondary">
                {item.originator.bank_name ? (
                  <UserText>{item.originator.bank_name}</UserText>
                ) : (
                  `Bank code ${item.originator.bank_code}`
                )}
                {' · '}
                <span className="money-in__number">{item.originator.account_number}</span>
              </span>
            </Cell>
            <Cell>
              <CellLabel>Session ID</CellLabel>
              <code className="money-in__session">{item.session_id}</code>
            </Cell>
          </Row>
        )}
      </TableBody>
    </DataTable>
  );
}
