import type { Readable } from 'node:stream';
import { Busboy, type BusboyHeaders, type BusboyInstance } from '@fastify/busboy';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, addFieldError, type FieldErrors } from '../errors/errors.js';
import { addRouteHook } from './route-hooks.js';

export const MAX_FILE_BYTES = 5 * 1024 * 1024;
/** The whole body: one file of the maximum size plus room for the text fields and part headers. */
export const MAX_MULTIPART_BYTES = MAX_FILE_BYTES + 256 * 1024;

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
const bodyTooLarge = () =>
  tooLarge(
    `The multipart body is larger than ${MAX_MULTIPART_BYTES / 1024} KiB (one 5 MiB file and its fields).`,
  );

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
 * The parts read so far, by field name, and what is wrong with them: text parts as strings, the
 * schema's file fields as Buffers (once each). A file sent for a text field, or a second file for a
 * file field, is an error on that field; a file part under an unknown name is not kept.
 */
function partCollector(schema: unknown) {
  const fields = fieldsOf(schema);
  const body: Record<string, unknown> = Object.create(null);
  const errors: FieldErrors = {};
  const filesSeen = new Set<string>();
  const add = (name: string, value: unknown) => {
    if (FORBIDDEN_NAMES.has(name)) return;
    const existing = body[name];
    body[name] = existing === undefined ? value : [existing, value].flat();
  };
  return {
    text(name: string, value: string, truncated: boolean): void {
      if (truncated) addFieldError(errors, name, `must be at most ${LIMITS.fieldSize} bytes`);
      add(name, value);
    },
    /** Whether a file part under `name` is to be read (the first one of a file field). */
    takesFile(name: string): boolean {
      if (fields.files.has(name) && !filesSeen.has(name)) {
        filesSeen.add(name);
        return true;
      }
      if (fields.known.has(name)) {
        addFieldError(
          errors,
          name,
          fields.files.has(name) ? 'must be a single file' : 'must be a text field, not a file',
        );
      }
      return false;
    },
    file: add,
    /** The body for validation, or the 422 naming each field refused while reading. */
    result(): Record<string, unknown> | AppError {
      return Object.keys(errors).length > 0 ? new AppError('VALIDATION_FAILED', { errors }) : { ...body };
    },
  };
}

/** The multipart parser of the request, or why there is none: a body declared too large, no boundary. */
function openParser(request: FastifyRequest): BusboyInstance | AppError {
  if (Number(request.headers['content-length']) > MAX_MULTIPART_BYTES) return bodyTooLarge();
  try {
    return Busboy({ headers: request.headers as BusboyHeaders, limits: LIMITS });
  } catch {
    return malformed('The multipart Content-Type needs a boundary parameter.');
  }
}

/**
 * Reads a multipart body into request.body before validation: text parts become strings and a file
 * field's part a Buffer (at most 5 MiB), so the route's schema validates it like a JSON body (see
 * partCollector). A body that is not valid multipart, or ends before its closing boundary, is 400
 * MALFORMED_REQUEST; a file over 5 MiB, a body over MAX_MULTIPART_BYTES (declared or counted) or too
 * many parts is 413.
 *
 * Every stream here has an 'error' listener: busboy emits 'error' on the current file stream when
 * the body ends inside it, and an 'error' event without a listener ends the process.
 */
function readMultipart(request: FastifyRequest, schema: unknown): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const parser = openParser(request);
    if (parser instanceof AppError) {
      reject(parser);
      return;
    }
    const parts = partCollector(schema);
    let settled = false;
    let parsed = false;
    let openFiles = 0;
    let received = 0;

    // What the client still sends after a failure is read and dropped (see lingerThenClose).
    const fail = (error: AppError) => {
      if (settled) return;
      settled = true;
      request.raw.unpipe(parser);
      request.raw.removeListener('data', count);
      request.raw.resume();
      reject(error);
    };
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received > MAX_MULTIPART_BYTES) fail(bodyTooLarge());
    };
    const finish = () => {
      if (settled || !parsed || openFiles > 0) return;
      settled = true;
      const result = parts.result();
      if (result instanceof AppError) reject(result);
      else resolve(result);
    };

    parser.on('field', (name, value, nameTruncated, valueTruncated) =>
      parts.text(name, value, nameTruncated || valueTruncated),
    );
    parser.on('file', (name, stream) => {
      // The parser's own 'error' (emitted first) decides the answer; this one only must not throw.
      stream.on('error', () => fail(malformed('The multipart body ended inside a file.')));
      if (!parts.takesFile(name)) {
        stream.resume();
        return;
      }
      openFiles += 1;
      bufferFile(stream, fail, (bytes) => {
        openFiles -= 1;
        if (bytes) parts.file(name, bytes);
        finish();
      });
    });
    refuseOverLimits(parser, fail);
    parser.on('finish', () => {
      parsed = true;
      finish();
    });
    request.raw.on('error', () => fail(malformed('The request body was cut off.')));
    request.raw.on('data', count);
    request.raw.pipe(parser);
  });
}

/** A file part's bytes, or undefined when it went over 5 MiB (`fail` has been told). */
function bufferFile(
  stream: Readable & { truncated?: boolean },
  fail: (error: AppError) => void,
  end: (bytes: Buffer | undefined) => void,
): void {
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('limit', () => fail(tooLarge('The file is larger than 5 MiB.')));
  stream.on('end', () => end(stream.truncated ? undefined : Buffer.concat(chunks)));
}

/** Too many parts or fields (413), or a body that is not multipart (400). */
function refuseOverLimits(parser: BusboyInstance, fail: (error: AppError) => void): void {
  parser.on('partsLimit', () => fail(tooLarge(`The multipart body has more than ${LIMITS.parts} parts.`)));
  parser.on('fieldsLimit', () => fail(tooLarge(`The multipart body has more than ${LIMITS.fields} fields.`)));
  parser.on('error', () => fail(malformed('The multipart body could not be parsed.')));
}

export function registerMultipart(app: FastifyInstance): void {
  // The stream is left unread here: the preValidation hook reads it for multipart routes only.
  app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null));
  addRouteHook(
    app,
    'preValidation',
    (config) => config.consumes === 'multipart',
    () => async (request, reply) => {
      if (!/^multipart\/form-data\b/i.test(request.headers['content-type'] ?? '')) return;
      try {
        request.body = await readMultipart(request, request.routeOptions.schema?.body);
      } catch (error) {
        if (!request.raw.complete) lingerThenClose(request, reply);
        throw error;
      }
    },
  );
}

const LINGER_MS = 2_000;

/**
 * A body refused before its end leaves the connection unusable. Closing it as soon as the answer is
 * written (what `Connection: close` makes Node do) resets it while the client is still sending,
 * since unread bytes make the kernel send RST, and the client may lose the answer. So the rest is
 * read and dropped for a while after the answer (a lingering close), then the connection is
 * closed, unless the body ended by then.
 */
function lingerThenClose(request: FastifyRequest, reply: FastifyReply): void {
  const socket = request.raw.socket;
  request.raw.resume();
  reply.raw.once('finish', () => {
    if (request.raw.complete) return;
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    request.raw.once('end', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
  });
}
