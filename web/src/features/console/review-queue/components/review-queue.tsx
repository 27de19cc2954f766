import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-aria-components';
import { useSearchParams } from 'react-router';
import { OnboardingStatusBadge } from '@/components/onboarding-status-badge';
import { Badge } from '@/components/ui/badge';
import { DateTime } from '@/components/ui/date-time';
import { PageHeader } from '@/components/ui/page-header';
import { Pager } from '@/components/ui/pager';
import { QueryView } from '@/components/ui/query-view';
import { SelectField } from '@/components/ui/select-field';
import { CellLabel } from '@/components/ui/table';
import { TextField } from '@/components/ui/text-field';
import type { PartnerSummary } from '@/lib/api/operator-types';
import { ONBOARDING_STATUS_LABELS, requirementLabel } from '@/lib/onboarding-labels';
import { useCursorPages } from '@/lib/use-cursor-pages';
import { useDebouncedParam } from '@/lib/use-debounced-param';
import { partnersQuery, type QueueFilter } from '../api/list-partners';
import './review-queue.css';
import '@/components/ui/table.css';
import { UserText } from '@/components/ui/user-text';

const FILTERS: Array<{ id: QueueFilter; label: string }> = [
  { id: 'pending_review', label: 'Waiting for review' },
  { id: 'under_review', label: `Status: ${ONBOARDING_STATUS_LABELS.under_review}` },
  { id: 'in_progress', label: `Status: ${ONBOARDING_STATUS_LABELS.in_progress}` },
  { id: 'active', label: `Status: ${ONBOARDING_STATUS_LABELS.active}` },
  { id: 'suspended', label: `Status: ${ONBOARDING_STATUS_LABELS.suspended}` },
  { id: 'rejected', label: `Status: ${ONBOARDING_STATUS_LABELS.rejected}` },
  { id: 'all', label: 'All partners' },
];

/** The order of the page's rows: by waiting time; partners not waiting come last either way. */
type QueueOrder = 'longest-waiting' | 'shortest-waiting';

const ORDERS: Array<{ id: QueueOrder; label: string }> = [
  { id: 'longest-waiting', label: 'Longest waiting first' },
  { id: 'shortest-waiting', label: 'Shortest waiting first' },
];

const isFilter = (value: string | null): value is QueueFilter =>
  FILTERS.some((filter) => filter.id === value);

/** How long typing pauses before the search asks the server. */
const SEARCH_DELAY_MS = 300;

/** Four eyes: a decision proposed for the partner, awaiting another admin. */
const PROPOSED: Record<NonNullable<PartnerSummary['pending_proposal']>['action'], string> = {
  approve: 'Approval proposed',
  suspend: 'Suspension proposed',
  reinstate: 'Reinstatement proposed',
};

/**
 * The review queue: by default the partners with something awaiting review (applications and
 * documents), the longest-waiting first; the filter, the search and the order are kept in the
 * address (?show=, ?q=, ?order=). The search is the API's `q`, over every partner; the order by
 * waiting time works on the page loaded (GET /admin/partners lists by registration: waiting time is
 * derived: docs/decisions.md, "The console's review queue searches on the server"), and says so when there are more pages.
 */
export function ReviewQueue() {
  const [searchParams, setSearchParams] = useSearchParams();
  const shown = searchParams.get('show');
  const filter: QueueFilter = isFilter(shown) ? shown : 'pending_review';
  const search = (searchParams.get('q') ?? '').trim().slice(0, 100);
  const order: QueueOrder =
    searchParams.get('order') === 'shortest-waiting' ? 'shortest-waiting' : 'longest-waiting';
  const pages = useCursorPages(`${filter}|${search}`);
  const partners = useQuery(partnersQuery(filter, search, pages.cursor));

  /** Changes one parameter of the address, leaving the others; the default value is left out. */
  const setParam = (name: string, value: string, fallback: string) =>
    setSearchParams(
      (params) => {
        const next = new URLSearchParams(params);
        if (value === fallback) next.delete(name);
        else next.set(name, value);
        return next;
      },
      { replace: true },
    );

  // What is typed goes to the address (and so to the server) once typing pauses.
  const [typed, setTyped] = useDebouncedParam('q', SEARCH_DELAY_MS);

  const items = partners.data ? arrange(partners.data.items, order) : [];
  return (
    <div className="review-queue">
      <title>Review queue · Operator console</title>
      <PageHeader
        title="Review queue"
        description="Partners with an application or documents waiting for a decision, the longest-waiting first. Open a partner to review it."
      />
      <search className="review-queue__toolbar" aria-label="Find partners in the queue">
        <SelectField
          label="Show"
          name="show"
          options={FILTERS}
          value={filter}
          onChange={(value) => setParam('show', value, 'pending_review')}
        />
        <TextField
          label="Search"
          type="search"
          name="q"
          maxLength={100}
          value={typed}
          onChange={setTyped}
          description="Business or legal name, or e-mail address: every partner, not just this page"
        />
        <SelectField
          label="Order"
          name="order"
          options={ORDERS}
          value={order}
          onChange={(value) => setParam('order', value, 'longest-waiting')}
        />
      </search>
      {partners.data && !partners.isPlaceholderData ? (
        <p className="review-queue__count" role="status">
          {describeCount(partners.data.items.length, search, pages.page, Boolean(partners.data.next_cursor))}
        </p>
      ) : null}
      <QueryView query={partners} loading="Loading the queue…" errorTitle="The queue could not be loaded.">
        {(data) => (
          <>
            <div className="review-queue__results" aria-busy={partners.isPlaceholderData}>
              <QueueTable items={items} filter={filter} searching={search !== ''} />
            </div>
            <Pager label="Queue pages" pages={pages} nextCursor={data.next_cursor} />
          </>
        )}
      </QueryView>
    </div>
  );
}

/** The page's partners in the order chosen. */
function arrange(items: PartnerSummary[], order: QueueOrder): PartnerSummary[] {
  const direction = order === 'longest-waiting' ? 1 : -1;
  // Stable: partners waiting equally long, or not at all, keep the server's order.
  return items.toSorted((a, b) => {
    if (a.waiting_since === b.waiting_since) return 0;
    if (a.waiting_since === null) return 1;
    if (b.waiting_since === null) return -1;
    return direction * (Date.parse(a.waiting_since) - Date.parse(b.waiting_since));
  });
}

function describeCount(loaded: number, search: string, page: number, more: boolean): string {
  const partners = (count: number) => (count === 1 ? '1 partner' : `${count} partners`);
  const where = more || page > 1 ? ` on page ${page}` : '';
  // Sorting by waiting time sees only the page loaded: say so when there is more than one.
  const scope = more || page > 1 ? ' Ordered by waiting time within this page.' : '';
  if (loaded === 0) return page > 1 ? 'No more partners.' : '';
  const matching = search !== '' ? ' matching the search' : '';
  return `${partners(loaded)}${matching}${where}.${scope}`;
}

/**
 * The partners, each row a link to its review (a real <a>: it opens in a new tab too); the link
 * covers the whole row for the pointer.
 */
function QueueTable({
  items,
  filter,
  searching,
}: {
  items: PartnerSummary[];
  filter: QueueFilter;
  searching: boolean;
}) {
  return (
    <div className="data-table-wrap">
      <table className="data-table review-queue__table" aria-label="Partners">
        <thead>
          <tr>
            <th scope="col" className="review-queue__business">
              Business
            </th>
            <th scope="col">Status</th>
            <th scope="col">Waiting for review</th>
            <th scope="col">Waiting since</th>
            <th scope="col">Assigned to</th>
          </tr>
        </thead>
        <tbody>
          {items.length === 0 ? (
            <tr>
              <td colSpan={5}>
                <p className="data-table__empty">
                  {searching
                    ? 'No partner matches the search.'
                    : filter === 'pending_review'
                      ? 'Nothing is waiting for review.'
                      : 'No partner matches this filter.'}
                </p>
              </td>
            </tr>
          ) : (
            items.map((partner) => (
              <tr key={partner.company_id} className="review-queue__row">
                <td className="review-queue__business">
                  <Link
                    className="review-queue__link data-table__primary"
                    href={`/partners/${partner.company_id}`}
                  >
                    <UserText>{partner.business_name}</UserText>
                  </Link>
                  <span className="data-table__secondary">
                    {partner.legal_business_name !== partner.business_name ? (
                      <>
                        <UserText>{partner.legal_business_name}</UserText> ·{' '}
                      </>
                    ) : null}
                    <UserText>{partner.email}</UserText> · Company {partner.company_id}
                  </span>
                </td>
                <td>
                  <CellLabel>Status</CellLabel>
                  <OnboardingStatusBadge status={partner.onboarding_status} />
                  {partner.pending_proposal ? (
                    <span className="data-table__secondary">
                      <Badge tone="warning">{PROPOSED[partner.pending_proposal.action]}</Badge>
                    </span>
                  ) : null}
                </td>
                <td>
                  <CellLabel>Waiting for review</CellLabel>
                  {partner.pending_review.length > 0 ? (
                    <ul className="review-queue__waits">
                      {partner.pending_review.map((item) => (
                        <li key={item}>
                          <Badge tone={item === 'application' ? 'info' : 'neutral'}>
                            {requirementLabel(item)}
                          </Badge>
                        </li>
                      ))}
                    </ul>
                  ) : (
                    <span className="muted">Nothing</span>
                  )}
                </td>
                <td>
                  <CellLabel>Waiting since</CellLabel>
                  {partner.waiting_since ? (
                    <DateTime value={partner.waiting_since} variant="relative" />
                  ) : (
                    <span className="muted">Not waiting</span>
                  )}
                </td>
                <td>
                  <CellLabel>Assigned to</CellLabel>
                  {partner.assigned_to ? (
                    <UserText>{partner.assigned_to.name}</UserText>
                  ) : (
                    <span className="muted">Nobody</span>
                  )}
                </td>
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}
