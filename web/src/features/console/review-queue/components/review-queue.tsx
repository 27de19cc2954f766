import { useQuery } from '@tanstack/react-query';
import { Cell, Column, Row, TableBody, TableHeader } from 'react-aria-components';
import { useSearchParams } from 'react-router';
import { OnboardingStatusBadge } from '@/components/onboarding-status-badge';
import { Badge } from '@/components/ui/badge';
import { DateTime } from '@/components/ui/date-time';
import { PageHeader } from '@/components/ui/page-header';
import { Pager } from '@/components/ui/pager';
import { QueryView } from '@/components/ui/query-view';
import { SelectField } from '@/components/ui/select-field';
import { CellLabel, DataTable } from '@/components/ui/table';
import type { PartnerSummary } from '@/lib/api/operator-types';
import { ONBOARDING_STATUS_LABELS, requirementLabel } from '@/lib/onboarding-labels';
import { useCursorPages } from '@/lib/use-cursor-pages';
import { partnersQuery, type QueueFilter } from '../api/list-partners';
import './review-queue.css';
import { UserText, visibleControls } from '@/components/ui/user-text';

const FILTERS: Array<{ id: QueueFilter; label: string }> = [
  { id: 'pending_review', label: 'Waiting for review' },
  { id: 'under_review', label: `Status: ${ONBOARDING_STATUS_LABELS.under_review}` },
  { id: 'in_progress', label: `Status: ${ONBOARDING_STATUS_LABELS.in_progress}` },
  { id: 'active', label: `Status: ${ONBOARDING_STATUS_LABELS.active}` },
  { id: 'suspended', label: `Status: ${ONBOARDING_STATUS_LABELS.suspended}` },
  { id: 'rejected', label: `Status: ${ONBOARDING_STATUS_LABELS.rejected}` },
  { id: 'all', label: 'All partners' },
];

const isFilter = (value: string | null): value is QueueFilter =>
  FILTERS.some((filter) => filter.id === value);

/**
 * The review queue: by default the partners with something awaiting review (applications and
 * documents), the longest-waiting first; the filter is kept in the address (?show=).
 */
export function ReviewQueue() {
  const [searchParams, setSearchParams] = useSearchParams();
  const shown = searchParams.get('show');
  const filter: QueueFilter = isFilter(shown) ? shown : 'pending_review';
  const pages = useCursorPages(filter);
  const partners = useQuery(partnersQuery(filter, pages.cursor));

  return (
    <div className="review-queue">
      <title>Review queue · Operator console</title>
      <PageHeader
        title="Review queue"
        description="Partners with an application or documents waiting for a decision, the longest-waiting first. Open a partner to review it."
      />
      <div className="review-queue__toolbar">
        <SelectField
          label="Show"
          name="show"
          options={FILTERS}
          value={filter}
          onChange={(value) =>
            setSearchParams(value === 'pending_review' ? {} : { show: value }, { replace: true })
          }
        />
        {partners.data && !partners.isPlaceholderData ? (
          <p className="review-queue__count" role="status">
            {describeCount(partners.data.items.length, pages.page, Boolean(partners.data.next_cursor))}
          </p>
        ) : null}
      </div>
      <QueryView query={partners} loading="Loading the queue…" errorTitle="The queue could not be loaded.">
        {(data) => (
          <>
            <div className="review-queue__results" aria-busy={partners.isPlaceholderData}>
              <QueueTable items={data.items} filter={filter} />
            </div>
            <Pager label="Queue pages" pages={pages} nextCursor={data.next_cursor} />
          </>
        )}
      </QueryView>
    </div>
  );
}

function describeCount(count: number, page: number, more: boolean): string {
  if (count === 0) return page > 1 ? 'No more partners.' : '';
  const partners = count === 1 ? '1 partner' : `${count} partners`;
  return more || page > 1 ? `${partners} on page ${page}` : `${partners}`;
}

function QueueTable({ items, filter }: { items: PartnerSummary[]; filter: QueueFilter }) {
  return (
    <DataTable aria-label="Partners" className="review-queue__table">
      <TableHeader>
        <Column isRowHeader className="review-queue__business">
          Business
        </Column>
        <Column>Status</Column>
        <Column>Waiting for review</Column>
        <Column>Waiting since</Column>
      </TableHeader>
      <TableBody
        items={items}
        renderEmptyState={() => (
          <p className="data-table__empty">
            {filter === 'pending_review'
              ? 'Nothing is waiting for review.'
              : 'No partner matches this filter.'}
          </p>
        )}
      >
        {(partner) => (
          <Row
            id={partner.company_id}
            href={`/partners/${partner.company_id}`}
            textValue={visibleControls(partner.business_name)}
          >
            <Cell>
              <span className="data-table__primary">
                <UserText>{partner.business_name}</UserText>
              </span>
              <span className="data-table__secondary">
                {partner.legal_business_name !== partner.business_name ? (
                  <>
                    <UserText>{partner.legal_business_name}</UserText> ·{' '}
                  </>
                ) : null}
                Company {partner.company_id}
              </span>
            </Cell>
            <Cell>
              <CellLabel>Status</CellLabel>
              <OnboardingStatusBadge status={partner.onboarding_status} />
            </Cell>
            <Cell>
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
            </Cell>
            <Cell>
              <CellLabel>Waiting since</CellLabel>
              {partner.waiting_since ? (
                <DateTime value={partner.waiting_since} variant="relative" />
              ) : (
                <span className="muted">Not waiting</span>
              )}
            </Cell>
          </Row>
        )}
      </TableBody>
    </DataTable>
  );
}
