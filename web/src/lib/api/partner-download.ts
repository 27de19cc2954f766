import { ApiError } from '@baas/sdk';
import { saveBlob } from '../download';
import { partnerSession } from './partner-api';

/**
 * GETs `url` of the partners' API as a file (`accept`: text/csv for an export) and saves it as
 * `fileName`. Fetched rather than linked: the session cookie goes with a same-origin fetch, no
 * credential is ever put in a URL, and an error comes back as JSON to show.
 */
export async function downloadPartnerFile(url: string, accept: string, fileName: string): Promise<string> {
  const response = await fetch(url, { headers: { Accept: accept }, credentials: 'same-origin' });
  partnerSession.noteResponse(url, response.status);
  if (!response.ok) throw ApiError.from(response, await response.json().catch(() => undefined));
  saveBlob(await response.blob(), fileName);
  return fileName;
}

/** The query string of a list's filters, leaving out those not set. */
export function listQuery(filters: object): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) {
    if (value !== undefined && value !== '') query.set(name, String(value));
  }
  const text = query.toString();
  return text ? `?${text}` : '';
}
