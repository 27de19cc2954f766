import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';

const SECRET_FIELDS = [
  'password',
  'password_confirmation',
  'otp',
  'code',
  'token',
  'bvn',
  'key',
  'secret',
  'authorization',
  'id_file',
  'file',
];

/**
 * Secrets are removed by the logger's configuration, so a call site cannot forget: any of these
 * fields, at the top level or up to three objects deep, is censored, as are credential headers.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["idempotency-key"]',
  'headers.authorization',
  ...SECRET_FIELDS.flatMap((field) => [field, `*.${field}`, `*.*.${field}`, `*.*.*.${field}`]),
];

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { service: 'baas-partner-api' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
}

export function createLogger(level: string, stream?: DestinationStream): Logger {
  return stream ? pino(loggerOptions(level), stream) : pino(loggerOptions(level));
}
