import { Busboy, type BusboyHeaders, type BusboyInstance } from '@fastify/busboy';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, addFieldError, type FieldErrors } from './errors.js';
import { addRouteHook } from './route-hooks.js';

export const MAX_FILE_BYTES = 5 * 1024 * 1024;

const LIMITS = {
  fileSize: MAX_FILE_BYTES,
  fields: 30,
  parts: 32,
  fieldSize: 8 * 1024,
  headerPairs: 50,
};

/** Names that would reach an object's prototype are dropped, like any unknown field. */
const FORBIDDEN_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

const tooLarge = (message: string) => new AppError('PAYLOAD_TOO_LARGE', { message });
const malformed = (message: string) => new AppError('MALFORMED_REQUEST', { message });

/** The body schema's file fields (format: binary) and its other known fields. */
function fieldsOf(schema: unknown): { files: Set<string>; known: Set<string> } {
  const properties =
    ((schema ?? {}) as { properties?: Record<string, { format?: string }> }).properties ?? {};
  const names = Object.keys(properties);
  return {
    files: new Set(names.filter((name) => properties[name]?.format === 'binary')),
    known: new Set(names),
  };
}

/**
 * Reads a multipart body into request.body before validation: text parts become strings and a file
 * field's part a Buffer (at most 5 MiB), so the route's schema validates it like a JSON body. Only
 * the schema's file fields are buffered, once each: a file sent for a text field is a 422 naming
 * it, a second file for the same field too, and a file part under an unknown name is drained and
 * ignored like any unknown field. A body that is not valid multipart, or ends before its closing
 * boundary, is 400 MALFORMED_REQUEST; a file over 5 MiB or too many parts is 413.
 */
function readMultipart(request: FastifyRequest, schema: unknown): Promise<Record<string, unknown>> {
  const fields = fieldsOf(schema);
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
    const filesSeen = new Set<string>();

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
      if (!fields.files.has(name) || filesSeen.has(name)) {
        if (fields.known.has(name)) {
          addFieldError(
            errors,
            name,
            fields.files.has(name) ? 'must be a single file' : 'must be a text field, not a file',
          );
        }
        stream.resume();
        return;
      }
      filesSeen.add(name);
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
      request.body = await readMultipart(request, request.routeOptions.schema?.body);
    },
  );
}
