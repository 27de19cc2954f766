import { existsSync } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import path from 'node:path';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

const BankCode = (defaultCode: string, description: string) =>
  Type.String({ pattern: '^[0-9]{6}$', default: defaultCode, description });

const Bool = (description: string, fallback: 'true' | 'false' = 'false') =>
  Type.Union([Type.Literal('true'), Type.Literal('false')], { default: fallback, description });

/**
 * Every environment variable the service reads, with its default. Nothing else reads process.env.
 * Values arrive as strings; numbers are converted before validation.
 */
export const ConfigSchema = Type.Object({
  NODE_ENV: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')], {
    default: 'development',
  }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  DATABASE_URL: Type.Optional(
    Type.String({
      pattern: '^(sqlite:.+|postgres(ql)?://.+)$',
      description: 'sqlite:<path>, sqlite::memory: or postgres://…; default sqlite:<DATA_DIR>/baas.sqlite',
    }),
  ),
  DATABASE_STATEMENT_TIMEOUT_MS: Type.Integer({
    minimum: 0,
    default: 10000,
    description:
      "PostgreSQL: a request's statement (lock waits included) is cancelled after this long and answered 503; 0: never",
  }),
  DATABASE_POOL_TIMEOUT_MS: Type.Integer({
    minimum: 1,
    default: 10000,
    description: 'PostgreSQL: a request waits at most this long for a pooled connection, else 503',
  }),
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://.+' })),
  MAIL_FROM: Type.String({ minLength: 3, default: 'BaaS Partner API <no-reply@baas.local>' }),
  SMTP_TIMEOUT_MS: Type.Integer({
    minimum: 1,
    default: 10000,
    description: 'connection, greeting and inactivity timeout of each SMTP attempt',
  }),
  MAIL_RETRY_BASE_MS: Type.Integer({
    minimum: 1,
    default: 5000,
    description: 'first retry delay of an e-mail that could not be sent, doubling each time',
  }),
  MAIL_POLL_MS: Type.Integer({
    minimum: 1,
    default: 1000,
    description: 'how often the mail worker looks for due e-mails (a new one is sent at once anyway)',
  }),
  ADMIN_API_KEY: Type.Optional(Type.String({ minLength: 32, description: 'at least 32 characters' })),
  DATA_ENCRYPTION_KEY: Type.Optional(Type.String({ description: 'base64 of 32 random bytes' })),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://.+' })),
  RATE_LIMIT_IP_PER_MINUTE: Type.Integer({ minimum: 0, default: 600 }),
  METRICS_TOKEN: Type.Optional(
    Type.String({
      minLength: 32,
      description:
        'at least 32 characters; set, GET /metrics answers Prometheus text to Bearer <token>; unset, 404',
    }),
  ),
  SHUTDOWN_GRACE_MS: Type.Integer({
    minimum: 1,
    default: 20000,
    description:
      'SIGTERM/SIGINT: how long in-flight requests and worker attempts (a webhook, a call to the bank) may take to finish before the process exits anyway, leaving what is unfinished leased for another instance',
  }),
  WORKER_STUCK_AFTER_MS: Type.Integer({
    minimum: 1,
    default: 60000,
    description:
      '/readyz reports a worker stuck when its pass (or the wait for the next) has lasted this long',
  }),
  KYC_PROVIDER: Type.Union([Type.Literal('sandbox'), Type.Literal('prembly')], {
    default: 'sandbox',
    description: 'sandbox: a BVN starting 22 passes; prembly: Prembly (IdentityPass) BVN lookup',
  }),
  KYC_BASE_URL: Type.String({ pattern: '^https?://.+', default: 'https://api.prembly.com' }),
  KYC_APP_ID: Type.Optional(Type.String({ minLength: 1 })),
  KYC_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  KYC_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 10000 }),
  BANK_CODE_SANDBOX: BankCode('999999', 'institution code of sandbox accounts'),
  BANK_CODE_LIVE: BankCode('090999', 'institution code of live accounts; set your own'),
  BANK_NAME: Type.String({ minLength: 1, maxLength: 100, default: 'BaaS Partner Bank' }),
  BANK_CONNECTOR_URL: Type.Optional(
    Type.String({
      pattern: '^https?://[^?#]+$',
      description: "the sponsor bank connector's base URL (transfers call it); required in production",
    }),
  ),
  BANK_CONNECTOR_SECRET: Type.Optional(
    Type.String({
      pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$',
      description:
        'whsec_ + base64 of at least 24 random bytes: signs the connector calls both ways; unset, /bank/* is 404',
    }),
  ),
  BANK_CONNECTOR_ALLOWED_IPS: Type.Optional(
    Type.String({ description: 'comma-separated addresses or CIDR ranges allowed to call /bank/*' }),
  ),
  BANK_CONNECTOR_TIMEOUT_MS: Type.Integer({
    minimum: 1,
    default: 10000,
    description: 'how long a call to the connector may take before it counts as no answer',
  }),
  TRANSFER_REQUERY_MS: Type.Integer({
    minimum: 1,
    default: 30000,
    description:
      'first status query of a transfer whose outcome the bank did not give, doubling each time for 24 hours',
  }),
  TRANSFER_WORKER: Bool(
    'false: this instance accepts transfers but leaves sending them to the instances that run the worker',
    'true',
  ),
  TRANSFER_POLL_MS: Type.Integer({
    minimum: 1,
    default: 1000,
    description: 'how often the transfer worker looks for due transfers (a new one is sent at once anyway)',
  }),
  REQUIRE_FOUR_EYES: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], {
      description:
        'true: approving, suspending and reinstating a partner is proposed by one admin and confirmed by another; default true when NODE_ENV=production, else false',
    }),
  ),
  WEBHOOK_ALLOW_PRIVATE: Bool('lift the SSRF guard on webhook URLs (development and tests only)'),
  WEBHOOK_RETRY_BASE_MS: Type.Integer({ minimum: 1, default: 30000 }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 10000, description: 'per delivery attempt' }),
  WEBHOOK_POLL_MS: Type.Integer({
    minimum: 1,
    default: 1000,
    description: 'how often the worker looks for due events',
  }),
  WEBHOOK_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 20,
    description: 'webhook requests in flight per instance, shared fairly between endpoints',
  }),
  WEBHOOK_ENDPOINT_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 1,
    description:
      "requests in flight to one endpoint; above 1 a partner's events may arrive out of creation order",
  }),
  TRUST_PROXY: Type.String({
    default: 'false',
    pattern: '^(true|false|[0-9]+|[0-9a-fA-F.:/, ]+)$',
    description: 'false, true, a hop count, or a comma-separated list of proxy addresses/CIDRs',
  }),
  PUBLIC_URL: Type.Optional(
    Type.String({
      pattern: '^https?://[^/?#]+$',
      description:
        'where people reach this server (operator invitation links; the Origin the browser apps must send); ' +
        'required and https in production; elsewhere default http://HOST:PORT',
    }),
  ),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
    { default: 'info' },
  ),
  UV_THREADPOOL_SIZE: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 1024,
      description:
        "libuv's thread pool (argon2id hashes, file I/O), read by libuv from the process environment " +
        'before any of our code runs; npm start sets the core count; unset: 4',
    }),
  ),
});

type RawConfig = Static<typeof ConfigSchema>;

/** Variables whose values never appear in a message: keys, and URLs that may carry a password. */
const SECRET_VARIABLES: ReadonlySet<string> = new Set([
  'ADMIN_API_KEY',
  'METRICS_TOKEN',
  'DATA_ENCRYPTION_KEY',
  'SMTP_URL',
  'REDIS_URL',
  'DATABASE_URL',
  'KYC_API_KEY',
  'KYC_APP_ID',
  'BANK_CONNECTOR_SECRET',
]);

/** What a configuration message may say about a value: the value itself, or only its length. */
function shown(variable: string, value: unknown): string {
  if (!SECRET_VARIABLES.has(variable)) return `got ${JSON.stringify(value)}`;
  return `${typeof value === 'string' ? `${value.length} characters, ` : ''}value not shown`;
}

export type Config = Omit<
  RawConfig,
  'WEBHOOK_ALLOW_PRIVATE' | 'TRANSFER_WORKER' | 'TRUST_PROXY' | 'DATABASE_URL' | 'REQUIRE_FOUR_EYES'
> & {
  DATABASE_URL: string;
  /** Approve, suspend and reinstate need a second admin (docs/operator-guide.md, "Four eyes"). */
  REQUIRE_FOUR_EYES: boolean;
  WEBHOOK_ALLOW_PRIVATE: boolean;
  TRANSFER_WORKER: boolean;
  TRUST_PROXY: boolean | number | string;
};

/** Where people reach this server: PUBLIC_URL, or (never in production) http://HOST:PORT. */
export const publicUrlOf = (config: Pick<Config, 'PUBLIC_URL' | 'HOST' | 'PORT'>): string =>
  config.PUBLIC_URL ?? `http://${config.HOST}:${config.PORT}`;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function parseTrustProxy(value: string): boolean | number | string {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^[0-9]+$/.test(value)) return Number(value);
  return value;
}

function checkEncryptionKey(value: string): string | undefined {
  const bytes = Buffer.from(value, 'base64');
  if (bytes.length !== 32 || bytes.toString('base64') !== value.replace(/\s/g, '')) {
    return 'DATA_ENCRYPTION_KEY must be the base64 encoding of exactly 32 random bytes (openssl rand -base64 32)';
  }
  return undefined;
}

/**
 * Builds the configuration from an environment map (process.env in production, a plain object in
 * tests). Throws ConfigError listing every problem at once.
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const known = Object.keys(ConfigSchema.properties);
  const input: Record<string, unknown> = {};
  for (const key of known) {
    const value = env[key];
    if (value !== undefined && value.trim() !== '') input[key] = value.trim();
  }
  // Value.Convert would turn "3000.5" into 3000 and "1e3" into 1: integers must be plain digits.
  const problems: string[] = [];
  for (const [key, schema] of Object.entries(ConfigSchema.properties)) {
    if (schema.type === 'integer' && input[key] !== undefined && !/^[0-9]+$/.test(String(input[key]))) {
      problems.push(`${key}: must be a whole number (${shown(key, input[key])})`);
      delete input[key];
    }
  }
  const converted = Value.Convert(ConfigSchema, Value.Default(ConfigSchema, input));
  for (const error of Value.Errors(ConfigSchema, converted)) {
    const variable = error.path.slice(1) || 'config';
    problems.push(`${variable}: ${error.message} (${shown(variable, error.value)})`);
  }
  // The checks below read only values they compare exactly, so they run on a partly invalid config
  // too: one start-up names every problem.
  const raw = converted as RawConfig;

  if (raw.DATA_ENCRYPTION_KEY !== undefined) {
    const problem = checkEncryptionKey(raw.DATA_ENCRYPTION_KEY);
    if (problem) problems.push(problem);
  }
  if (raw.BANK_CONNECTOR_SECRET !== undefined) {
    const bytes = Buffer.from(raw.BANK_CONNECTOR_SECRET.slice('whsec_'.length), 'base64').length;
    if (bytes < 24) {
      problems.push(
        `BANK_CONNECTOR_SECRET must be whsec_ + base64 of at least 24 random bytes (${bytes} bytes, value not shown)`,
      );
    }
  }
  if (raw.BANK_CONNECTOR_ALLOWED_IPS !== undefined) {
    const { bad } = parseAllowList(raw.BANK_CONNECTOR_ALLOWED_IPS);
    if (bad.length > 0) {
      problems.push(
        `BANK_CONNECTOR_ALLOWED_IPS: not an IP address or CIDR range: ${bad.map((entry) => JSON.stringify(entry)).join(', ')}`,
      );
    }
  }
  if (raw.BANK_CONNECTOR_URL && !raw.BANK_CONNECTOR_SECRET) {
    problems.push(
      'BANK_CONNECTOR_URL needs BANK_CONNECTOR_SECRET: every call to the connector is signed with it',
    );
  }
  if (raw.NODE_ENV === 'production') {
    if (!raw.BANK_CONNECTOR_URL || !raw.BANK_CONNECTOR_SECRET) {
      problems.push(
        'BANK_CONNECTOR_URL and BANK_CONNECTOR_SECRET are required when NODE_ENV=production (live money goes through the sponsor bank)',
      );
    }
    if (!raw.SMTP_URL)
      problems.push('SMTP_URL is required when NODE_ENV=production (OTP e-mails must be sent)');
    if (!raw.DATA_ENCRYPTION_KEY) {
      problems.push('DATA_ENCRYPTION_KEY is required when NODE_ENV=production (BVNs are encrypted with it)');
    }
    if (raw.WEBHOOK_ALLOW_PRIVATE === 'true') {
      problems.push('WEBHOOK_ALLOW_PRIVATE=true is refused when NODE_ENV=production');
    }
    if (!raw.PUBLIC_URL) {
      problems.push(
        'PUBLIC_URL is required when NODE_ENV=production (the https address people reach this server at: invitation links and the browser apps use it)',
      );
    } else if (!raw.PUBLIC_URL.startsWith('https://')) {
      problems.push('PUBLIC_URL must be an https:// URL when NODE_ENV=production');
    }
  }
  if (raw.KYC_PROVIDER === 'prembly' && (!raw.KYC_APP_ID || !raw.KYC_API_KEY)) {
    problems.push('KYC_PROVIDER=prembly needs KYC_APP_ID and KYC_API_KEY');
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);

  return {
    ...raw,
    DATA_DIR: path.resolve(raw.DATA_DIR),
    DATABASE_URL: raw.DATABASE_URL ?? `sqlite:${path.join(path.resolve(raw.DATA_DIR), 'baas.sqlite')}`,
    WEBHOOK_ALLOW_PRIVATE: raw.WEBHOOK_ALLOW_PRIVATE === 'true',
    REQUIRE_FOUR_EYES:
      raw.REQUIRE_FOUR_EYES === undefined ? raw.NODE_ENV === 'production' : raw.REQUIRE_FOUR_EYES === 'true',
    TRANSFER_WORKER: raw.TRANSFER_WORKER === 'true',
    TRUST_PROXY: parseTrustProxy(raw.TRUST_PROXY),
  };
}

/**
 * An address allow-list (`1.2.3.4, 10.0.0.0/8, ::1`) as a BlockList; `bad` names what is neither an
 * address nor a CIDR range.
 */
export function parseAllowList(value: string): { list: BlockList; bad: string[] } {
  const list = new BlockList();
  const bad: string[] = [];
  for (const entry of value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')) {
    const [address = '', prefix, extra] = entry.split('/');
    const family = isIP(address);
    const bits = prefix === undefined ? undefined : /^[0-9]{1,3}$/.test(prefix) ? Number(prefix) : -1;
    const maxBits = family === 6 ? 128 : 32;
    if (family === 0 || extra !== undefined || (bits !== undefined && (bits < 0 || bits > maxBits))) {
      bad.push(entry);
      continue;
    }
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, bits, type);
  }
  return { list, bad };
}

/** Reads `.env` from the working directory into process.env (existing variables win). */
export function readDotEnv(file = '.env'): void {
  if (existsSync(file)) process.loadEnvFile(file);
}
