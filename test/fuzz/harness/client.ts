import { JPEG_BYTES, PDF_BYTES, PNG_BYTES } from '../../support/factories.js';
import { FILE_LIMIT, type SchemeName } from './contract.js';
import type { Operation } from './openapi.js';
import type { HttpResult } from './oracle.js';
import type { AuthChoice, BodyChoice, RequestPlan, ValueChoice } from './plan.js';
import { BigString, FilePart, PoolValue, preview, Repeated, TextAsFile, toJsonText } from './values.js';
import type { FuzzWorld, Owner, PoolName } from './world.js';

/** A plan turned into bytes: what goes on the wire and how to print it without secrets. */
export interface ResolvedRequest {
  method: string;
  url: string;
  path: string;
  headers: Record<string, string>;
  body: string | FormData | Uint8Array | undefined;
  /** Parameter values with the owner of each pooled one. */
  params: Record<string, { value: string; owner: Owner | undefined }>;
  idempotencyKey: string | undefined;
  /** For failure messages: headers minus secrets, body preview. */
  describe(): string;
}

let oversized: Buffer | undefined;

export function fileBytes(part: FilePart): Buffer {
  switch (part.content) {
    case 'png':
      return PNG_BYTES;
    case 'pdf':
      return PDF_BYTES;
    case 'jpeg':
      return JPEG_BYTES;
    case 'random':
      return Buffer.from(part.randomBytes);
    case 'empty':
      return Buffer.alloc(0);
    case 'text':
      return Buffer.from('just some text, not a document\n');
    case 'svg':
      return Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    case 'oversized':
      oversized ??= Buffer.concat([PNG_BYTES, Buffer.alloc(FILE_LIMIT + 1 - PNG_BYTES.length, 0)]);
      return oversized;
  }
}

export function resolveChoice(
  world: FuzzWorld,
  choice: ValueChoice,
): { value: string; owner: Owner | undefined } {
  if ('literal' in choice) return { value: choice.literal, owner: undefined };
  const entry = world.pools.pick(choice.pool, choice.index);
  return entry
    ? { value: entry.value, owner: entry.owner }
    : { value: '00000000-0000-4000-8000-000000000000', owner: undefined };
}

const SECRET_LABELS: Record<SchemeName, string> = {
  sessionToken: '<session token>',
  apiKey: '<API key>',
  adminKey: '<admin key>',
};

interface AuthHeader {
  value: string | undefined;
  printable: string | undefined;
}

async function authorization(
  world: FuzzWorld,
  op: Operation,
  auth: AuthChoice,
  fresh: boolean,
): Promise<AuthHeader> {
  const credential = async (scheme: SchemeName): Promise<string> =>
    scheme === 'sessionToken' && fresh ? world.freshSession() : world.credentials[scheme];
  switch (auth.kind) {
    case 'none':
      return { value: undefined, printable: undefined };
    case 'ignored':
      return { value: auth.value, printable: auth.value };
    case 'credential': {
      const secret = await credential(auth.scheme);
      const label = SECRET_LABELS[auth.scheme];
      const scheme = {
        standard: 'Bearer ',
        lowercase: 'bearer ',
        uppercase: 'BEARER ',
        'double-space': 'Bearer  ',
        'trailing-space': 'Bearer ',
      }[auth.variant];
      const tail = auth.variant === 'trailing-space' ? ' ' : '';
      return { value: `${scheme}${secret}${tail}`, printable: `${scheme}${label}${tail}` };
    }
    case 'bad': {
      const scheme = (op.security[0] ?? 'sessionToken') as SchemeName;
      const real = await credential(scheme);
      const label = SECRET_LABELS[scheme];
      const garbage = auth.garbage;
      switch (auth.bad) {
        case 'missing':
          return { value: undefined, printable: undefined };
        case 'empty':
          return { value: '', printable: '' };
        case 'scheme-only':
          return { value: 'Bearer', printable: 'Bearer' };
        case 'garbage':
          return { value: `Bearer ${garbage}`, printable: `Bearer ${garbage}` };
        case 'basic':
          return {
            value: `Basic ${Buffer.from(`${garbage}:pw`).toString('base64')}`,
            printable: 'Basic <base64>',
          };
        case 'no-scheme':
          return { value: real, printable: label };
        case 'token-scheme':
          return { value: `Token ${real}`, printable: `Token ${label}` };
        case 'tampered': {
          const last = real.at(-1) === 'A' ? 'B' : 'A';
          return {
            value: `Bearer ${real.slice(0, -1)}${last}`,
            printable: `Bearer ${label} (last char changed)`,
          };
        }
        case 'truncated':
          return { value: `Bearer ${real.slice(0, -4)}`, printable: `Bearer ${label} (4 chars short)` };
        case 'fake-api-key':
          return { value: `Bearer sk_sandbox_${garbage}`, printable: `Bearer sk_sandbox_${garbage}` };
        case 'too-long':
          return { value: `Bearer ${real}${'a'.repeat(600)}`, printable: `Bearer ${label}+600×a` };
        case 'tab-separator':
          return { value: `Bearer\t${real}`, printable: `Bearer\\t${label}` };
        case 'two-credentials':
          return {
            value: `Bearer ${garbage}, Bearer ${real}`,
            printable: `Bearer ${garbage}, Bearer ${label}`,
          };
        case 'revoked-api-key':
          return {
            value: `Bearer ${world.credentials.revokedApiKey}`,
            printable: 'Bearer <revoked API key>',
          };
        case 'logged-out-session':
          return {
            value: `Bearer ${world.credentials.loggedOutToken}`,
            printable: 'Bearer <logged-out session token>',
          };
        default: {
          const wrong = auth.bad.slice('wrong-kind:'.length) as SchemeName;
          return { value: `Bearer ${world.credentials[wrong]}`, printable: `Bearer ${SECRET_LABELS[wrong]}` };
        }
      }
    }
  }
}

function multipartBody(parts: Array<[string, unknown]>): { form: FormData; printable: string } {
  const form = new FormData();
  const printed: string[] = [];
  const text = (value: unknown) => (value instanceof BigString ? value.value : String(value));
  for (const [name, value] of parts) {
    if (value instanceof FilePart) {
      form.append(name, new Blob([fileBytes(value)], { type: value.contentType }), value.filename);
    } else if (value instanceof TextAsFile) {
      form.append(name, new Blob([value.text], { type: 'text/plain' }), `${name}.txt`);
    } else if (value instanceof Repeated) {
      for (const item of value.values) form.append(name, item);
    } else {
      form.append(name, text(value));
    }
    printed.push(`${name}=${preview(value, 200)}`);
  }
  return { form, printable: `multipart{ ${printed.join(', ')} }` };
}

/** Replaces PoolValue markers by their current value (deep, plain objects and arrays only). */
function resolvePoolValues(world: FuzzWorld, value: unknown): unknown {
  if (value instanceof PoolValue) {
    const entry = world.pools.pick(value.pool as PoolName, value.index);
    const text = entry?.value ?? 'nobody@example.com';
    return value.transform === 'otp' ? (world.latestOtp(text) ?? '000000') : text;
  }
  if (Array.isArray(value)) return value.map((item) => resolvePoolValues(world, item));
  if (
    value !== null &&
    typeof value === 'object' &&
    [Object.prototype, null].includes(Object.getPrototypeOf(value))
  ) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, resolvePoolValues(world, item)]),
    );
  }
  return value;
}

export async function resolveRequest(
  world: FuzzWorld,
  op: Operation,
  plan: RequestPlan,
  options: { freshSession: boolean },
): Promise<ResolvedRequest> {
  const params: ResolvedRequest['params'] = {};
  let path = op.path;
  // Parameters that match another's owner are resolved after it.
  const ordered = Object.entries(plan.params).sort(
    ([, a], [, b]) =>
      Number('matchOwnerOf' in a && a.matchOwnerOf !== undefined) -
      Number('matchOwnerOf' in b && b.matchOwnerOf !== undefined),
  );
  for (const [name, choice] of ordered) {
    let resolved = resolveChoice(world, choice);
    const other =
      'pool' in choice && choice.matchOwnerOf !== undefined ? params[choice.matchOwnerOf] : undefined;
    if ('pool' in choice && other?.owner) {
      const entry = world.pools.owned(choice.pool, other.owner);
      if (entry) resolved = { value: entry.value, owner: entry.owner };
    }
    params[name] = resolved;
    path = path.replace(`{${name}}`, encodeURIComponent(resolved.value));
  }
  const search = new URLSearchParams();
  for (const [name, choice] of plan.query) {
    if ('pool' in choice && choice.omitIfEmpty && world.pools.size(choice.pool) === 0) continue;
    search.append(name, resolveChoice(world, choice).value);
  }
  const query = search.toString();
  const url = `${world.t.url}${path}${query ? `?${query}` : ''}`;

  const headers: Record<string, string> = { 'x-fuzz': plan.property };
  const auth = await authorization(world, op, plan.auth, options.freshSession);
  if (auth.value !== undefined) headers['authorization'] = auth.value;
  const idempotencyKey = plan.idempotencyKey ? resolveChoice(world, plan.idempotencyKey).value : undefined;
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;

  let body: ResolvedRequest['body'];
  let printableBody = '(none)';
  const choice: BodyChoice | undefined = plan.body;
  if (choice?.kind === 'json') {
    body = toJsonText(resolvePoolValues(world, choice.value));
    headers['content-type'] = plan.contentType ?? 'application/json';
    printableBody = body.length > 2000 ? `${body.slice(0, 2000)}… (${body.length} chars)` : body;
  } else if (choice?.kind === 'raw') {
    const raw = choice.text instanceof BigString ? choice.text.value : choice.text;
    body = typeof raw === 'string' ? Buffer.from(raw) : raw;
    if (choice.contentType !== null) headers['content-type'] = choice.contentType;
    printableBody =
      choice.text instanceof BigString
        ? preview(choice.text)
        : preview(typeof raw === 'string' ? raw : `<${raw.length} bytes>`, 2000);
  } else if (choice?.kind === 'multipart') {
    const built = multipartBody(choice.parts);
    body = built.form;
    printableBody = built.printable;
  } else if (choice?.kind === 'raw-multipart') {
    body = Buffer.from(choice.text);
    headers['content-type'] =
      choice.boundary === null ? 'multipart/form-data' : `multipart/form-data; boundary=${choice.boundary}`;
    printableBody = preview(choice.text, 2000);
  }

  const printableHeaders = { ...headers };
  if (auth.value !== undefined) printableHeaders['authorization'] = auth.printable ?? '<redacted>';
  return {
    method: op.method,
    url,
    path: `${path}${query ? `?${query}` : ''}`,
    headers,
    body,
    params,
    idempotencyKey,
    describe: () =>
      [
        `${op.method} ${path}${query ? `?${query}` : ''}`,
        `headers: ${JSON.stringify(printableHeaders)}`,
        `body: ${printableBody}`,
      ].join('\n  '),
  };
}

/**
 * A reused keep-alive socket that the server closed as idle just as the request went out (its 5 s
 * timer and fetch's 4 s one race when a loaded machine stalls either loop by a second): the request
 * never reached the app, and HTTP lets a client send a safe method again.
 */
function socketClosedUnderfoot(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } } | undefined)?.cause;
  return cause?.code === 'ECONNRESET' || cause?.code === 'UND_ERR_SOCKET';
}

async function fetchOnce(request: ResolvedRequest): Promise<Response> {
  return fetch(request.url, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    redirect: 'manual',
    signal: AbortSignal.timeout(30_000),
  });
}

export async function send(request: ResolvedRequest): Promise<HttpResult> {
  let response: Response;
  try {
    response = await fetchOnce(request);
  } catch (error) {
    const safe = request.method === 'GET' || request.method === 'HEAD';
    if (!safe || !socketClosedUnderfoot(error)) throw error;
    response = await fetchOnce(request);
  }
  const text = await response.text();
  let json: unknown;
  let isJson = false;
  try {
    json = JSON.parse(text);
    isJson = true;
  } catch {
    json = undefined;
  }
  return {
    status: response.status,
    headers: response.headers,
    text,
    json,
    isJson,
    contentType: response.headers.get('content-type') ?? '',
  };
}
