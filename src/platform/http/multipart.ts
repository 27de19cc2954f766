import { Busboy, type BusboyHeaders, type BusboyInstance } from '@fastify/busboy';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, addFieldError, type FieldErrors } from './errors.js';
import { addRouteHook } from './route-hooks.js';

export const MAX_FILE_BYTES = 5 * 1024 * 1024;

const LIMITS = {
  fileSize: MAX_FILE_BYTES,
  files: 1,
  fields: 30,
  parts: 32,
  fieldSize: 8 * 1024,
  headerPairs: 50,
};

/** Names that would reach an object's prototype are dropped, like any unknown field. */
const FORBIDDEN_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

const tooLarge = (message: string) => new AppError('PAYLOAD_TOO_LARGE', { message });
const malformed = (message: string) => new AppError('MALFORMED_REQUEST', { message });

/**
 * Reads a multipart body into request.body before validation: text parts become strings, the file
 * part a Buffer (one file, at most 5 MiB), so the route's schema validates it like a JSON body. A
 * repeated name becomes an array, which the schema refuses. A body that is not valid multipart, or
 * ends before its closing boundary, is 400 MALFORMED_REQUEST; a limit passed is 413.
 */
function readMultipart(request: FastifyRequest): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let parser: BusboyInstance;
    try {
      parser = Busboy({ headers: request.headers as BusboyHeaders, limits: LIMITS });
    } catch {
      reject(malformed('The multipart Content-Type needs a boundary parameter.'));
      return;
    }
    const body: Record<string, unknown> = Object.create(null);
    const errors: FieldErrors = {};
    let settled = false;
    let parsed = false;
    let openFiles = 0;

    const fail = (error: AppError) => {
      if (settled) return;
      settled = true;
      request.raw.unpipe(parser);
      request.raw.resume();
      reject(error);
    };
    const finish = () => {
      if (settled || !parsed || openFiles > 0) return;
      settled = true;
      if (Object.keys(errors).length > 0) reject(new AppError('VALIDATION_FAILED', { errors }));
      else resolve({ ...body });
    };
    const add = (name: string, value: unknown) => {
      if (FORBIDDEN_NAMES.has(name)) return;
      const existing = body[name];
      body[name] = existing === undefined ? value : [existing, value].flat();
    };

    parser.on('field', (name, value, nameTruncated, valueTruncated) => {
      if (nameTruncated || valueTruncated)
        addFieldError(errors, name, `must be at most ${LIMITS.fieldSize} bytes`);
      add(name, value);
    });
    parser.on('file', (name, stream) => {
      openFiles += 1;
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail(tooLarge('The file is larger than 5 MiB.')));
      stream.on('end', () => {
        openFiles -= 1;
        if (!stream.truncated) add(name, Buffer.concat(chunks));
        finish();
      });
    });
    parser.on('partsLimit', () => fail(tooLarge(`The multipart body has more than ${LIMITS.parts} parts.`)));
    parser.on('filesLimit', () => fail(tooLarge('The multipart body has more than one file.')));
    parser.on('fieldsLimit', () =>
      fail(tooLarge(`The multipart body has more than ${LIMITS.fields} fields.`)),
    );
    parser.on('error', () => fail(malformed('The multipart body could not be parsed.')));
    parser.on('finish', () => {
      parsed = true;
      finish();
    });
    request.raw.on('error', () => fail(malformed('The request body was cut off.')));
    request.raw.pipe(parser);
  });
}

export function registerMultipart(app: FastifyInstance): void {
  // The stream is left unread here: the preValidation hook reads it for multipart routes only.
  app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null));
  addRouteHook(
    app,
    'preValidation',
    (config) => config.consumes === 'multipart',
    async (request) => {
      if (!/^multipart\/form-data\b/i.test(request.headers['content-type'] ?? '')) return;
      request.body = await readMultipart(request);
    },
  );
}
