import { ApiError } from '@baas/sdk';
import { partnerSession } from './partner-api';

export interface UploadOptions {
  /** Fraction of the body sent so far, 0 to 1. */
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

/**
 * POSTs a multipart form to a partner endpoint of this origin with XMLHttpRequest, the one browser
 * API that reports upload progress (fetch does not), with the session's anti-forgery token. Resolves
 * with the envelope's `data`; anything else rejects with an ApiError (a TypeError when the network
 * failed), like the typed client.
 */
export function uploadMultipart<T>(path: string, body: FormData, options: UploadOptions = {}): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', path);
    request.responseType = 'text';
    request.setRequestHeader('Accept', 'application/json');
    for (const [name, value] of Object.entries(partnerSession.antiForgeryHeaders()))
      request.setRequestHeader(name, value);

    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable && event.total > 0) options.onProgress?.(event.loaded / event.total);
    });
    request.addEventListener('load', () => {
      partnerSession.noteResponse(path, request.status);
      let body: unknown = request.responseText;
      try {
        body = JSON.parse(request.responseText);
      } catch {
        // Not JSON (a proxy's page): the text is what the error carries.
      }
      if (request.status >= 200 && request.status < 300 && typeof body === 'object' && body !== null) {
        options.onProgress?.(1);
        resolve((body as { data?: T }).data as T);
      } else {
        reject(ApiError.from(responseOf(request), body));
      }
    });
    request.addEventListener('error', () => reject(new TypeError('The upload could not reach the service.')));
    request.addEventListener('abort', () =>
      reject(new DOMException('The upload was cancelled.', 'AbortError')),
    );
    options.signal?.addEventListener('abort', () => request.abort(), { once: true });
    request.send(body);
  });
}

/** The XHR's answer as a fetch Response (status and headers), which the SDK's ApiError is read from. */
function responseOf(request: XMLHttpRequest): Response {
  const headers = new Headers();
  for (const line of request
    .getAllResponseHeaders()
    .trim()
    .split(/[\r\n]+/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return new Response(null, { status: request.status, statusText: request.statusText, headers });
}
