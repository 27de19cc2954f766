import { ApiError } from '@baas/sdk';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { partnerSession } from '@/lib/api/partner-api';
import type { PartnerDocumentType, RepresentativeResult } from '@/lib/api/partner-types';
import { uploadMultipart } from '@/lib/api/upload';
import { saveBlob } from '@/lib/download';
import { partnerKeys } from '@/lib/partner-query-keys';

const REPRESENTATIVE = '/baas/api/v1/client/onboarding/representative';
const DOCUMENTS = '/baas/api/v1/client/onboarding/documents';

/** A file, or the https address of one already hosted (never fetched by the service). */
export type FileSource = { file: File } | { url: string };

export interface RepresentativeFields {
  first_name: string;
  last_name: string;
  email: string;
  phone: string;
  dob: string;
  gender: string;
  designation: string;
  bvn: string;
  id_type: string;
  address: string;
}

interface WithProgress {
  onProgress: (fraction: number) => void;
}

/** Saves the compliance representative (multipart, with upload progress); the KYC result comes back at once. */
export function useSaveRepresentative() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({
      fields,
      id,
      onProgress,
    }: { fields: RepresentativeFields; id: FileSource } & WithProgress) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.append(name, value);
      if ('file' in id) form.append('id_file', id.file, id.file.name);
      else form.append('id_file_url', id.url);
      return uploadMultipart<RepresentativeResult>(REPRESENTATIVE, form, { onProgress });
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: partnerKeys.profile }),
  });
}

export interface UploadedDocument {
  id: string;
  document_type: PartnerDocumentType;
  status: 'pending_review';
  uploaded_at: string;
}

/** Uploads one document of a checklist type; it supersedes the previous one of that type. */
export function useUploadDocument() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({
      documentType,
      source,
      onProgress,
    }: { documentType: PartnerDocumentType; source: FileSource } & WithProgress) => {
      const form = new FormData();
      form.append('document_type', documentType);
      if ('file' in source) form.append('file', source.file, source.file.name);
      else form.append('file_url', source.url);
      return uploadMultipart<UploadedDocument>(DOCUMENTS, form, { onProgress });
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: partnerKeys.profile }),
  });
}

/** The file name the server gave (Content-Disposition), else one of the document's type and id. */
function attachmentName(response: Response, fallback: string): string {
  const disposition = response.headers.get('content-disposition') ?? '';
  return /filename="([^"]+)"/.exec(disposition)?.[1] ?? fallback;
}

/**
 * Saves the partner's own uploaded file of a document. Fetched rather than linked: the session
 * cookie goes with a same-origin fetch, and an error (a URL document has no file) comes back as JSON
 * to show. The server sends files as attachments only, so nothing of one runs in this page.
 */
export function useDownloadDocument() {
  return useMutation({
    mutationFn: async ({ id, documentType }: { id: string; documentType: PartnerDocumentType }) => {
      const url = `${DOCUMENTS}/${encodeURIComponent(id)}/file`;
      const response = await fetch(url, { credentials: 'same-origin' });
      partnerSession.noteResponse(url, response.status);
      if (!response.ok) throw ApiError.from(response, await response.json().catch(() => undefined));
      const fileName = attachmentName(response, `${documentType}-${id}`);
      saveBlob(await response.blob(), fileName);
      return fileName;
    },
  });
}
