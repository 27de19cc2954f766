import { useId } from 'react';
import { Button, Disclosure, DisclosurePanel, Heading } from 'react-aria-components';
import { Card } from '@/components/ui/card';
import { DateTime } from '@/components/ui/date-time';
import { UserText } from '@/components/ui/user-text';
import type { PartnerRecord } from '@/lib/api/operator-types';
import { documentTypeLabel } from '@/lib/onboarding-labels';
import { documentFileUrl } from '../api/partner';
import { DocumentItem, DocumentStatusBadge, fileDescription } from './document-item';

/**
 * The checklist of the partner's business type, each entry with its current document, then any
 * other current documents, then earlier (superseded) uploads.
 */
export function DocumentsSection({ partner }: { partner: PartnerRecord }) {
  const headingId = useId();
  const current = partner.documents.filter((document) => document.current);
  const checklist = Object.keys(partner.document_checklist);
  const entries = [
    ...checklist.map((type) => ({
      type,
      required: true,
      document: current.find((document) => document.document_type === type),
    })),
    ...current
      .filter((document) => !checklist.includes(document.document_type))
      .map((document) => ({ type: document.document_type, required: false, document })),
  ];
  const earlier = partner.documents.filter((document) => !document.current);
  const uploaded = Object.values(partner.document_checklist).filter((state) => state === 'uploaded').length;
  const approved = checklist.filter(
    (type) => current.find((document) => document.document_type === type)?.status === 'approved',
  ).length;

  return (
    <Card labelledBy={headingId} className="partner-section">
      <div className="partner-section__head">
        <h2 id={headingId}>Documents</h2>
        {checklist.length > 0 ? (
          <p className="partner-section__summary">
            {uploaded} of {checklist.length} required uploaded · {approved} approved
          </p>
        ) : null}
      </div>
      {entries.length === 0 ? (
        <p className="muted">
          No documents yet. The checklist appears once the partner has chosen its business type.
        </p>
      ) : (
        <ul className="documents">
          {entries.map((entry) => (
            <DocumentItem
              key={`${entry.type}:${entry.document?.id ?? 'missing'}`}
              companyId={partner.company_id}
              documentType={entry.type}
              required={entry.required}
              document={entry.document}
            />
          ))}
        </ul>
      )}
      {earlier.length > 0 ? (
        <Disclosure className="disclosure">
          <Heading level={3} className="disclosure__heading">
            <Button slot="trigger" className="disclosure__trigger">
              <span className="disclosure__chevron" aria-hidden="true">
                ▸
              </span>
              Earlier uploads ({earlier.length})
            </Button>
          </Heading>
          <DisclosurePanel className="disclosure__panel">
            <ul className="earlier-documents">
              {earlier.map((document) => (
                <li key={document.id}>
                  <span className="earlier-documents__title">
                    {documentTypeLabel(document.document_type)}
                  </span>{' '}
                  <DocumentStatusBadge document={document} />
                  <span className="earlier-documents__meta">
                    {fileDescription(document)} · uploaded <DateTime value={document.uploaded_at} />
                    {document.rejection_reason ? (
                      <>
                        {' '}
                        · reason: <UserText>{document.rejection_reason}</UserText>
                      </>
                    ) : null}
                  </span>
                  {document.file_deleted_at ? (
                    <span className="earlier-documents__meta">
                      File deleted: replaced before anyone reviewed it
                    </span>
                  ) : document.source === 'upload' ? (
                    <a href={documentFileUrl(partner.company_id, document.id)} download>
                      Download
                      <span className="visually-hidden">
                        {' '}
                        the earlier {documentTypeLabel(document.document_type)}
                      </span>
                    </a>
                  ) : document.file_url ? (
                    <a href={document.file_url} target="_blank" rel="noopener noreferrer">
                      <UserText>{document.file_url}</UserText>
                    </a>
                  ) : null}
                </li>
              ))}
            </ul>
          </DisclosurePanel>
        </Disclosure>
      ) : null}
    </Card>
  );
}
