import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, addFieldError, type FieldErrors } from './errors.js';

export const MAX_FILE_BYTES = 5 * 1024 * 1024;

const LIMITS = {
  fileSize: MAX_FILE_BYTES,
  files: 1,
  fields: 30,
  parts: 32,
  fieldSize: 8 * 1024,
  headerPairs: 50,
};

function isFrameworkError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('FST_');
}

/**
 * Reads a multipart body into request.body before validation: text parts become strings, the file
 * part a Buffer (at most 5 MiB, one file), so the route's schema validates it like a JSON body.
 * A repeated name becomes an array, which the schema refuses. A stream that is not valid multipart
 * is 400 MALFORMED_REQUEST; a file over the limit is 413 PAYLOAD_TOO_LARGE.
 */
async function readMultipart(request: FastifyRequest): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = Object.create(null);
  const errors: FieldErrors = {};
  const add = (name: string, value: unknown) => {
    const existing = body[name];
    body[name] = existing === undefined ? value : [existing, value].flat();
  };
  try {
    for await (const part of request.parts({ limits: LIMITS })) {
      if (part.type === 'file') {
        add(part.fieldname, await part.toBuffer());
      } else {
        if (part.valueTruncated)
          addFieldError(errors, part.fieldname, `must be at most ${LIMITS.fieldSize} bytes`);
        add(part.fieldname, part.value);
      }
    }
  } catch (error) {
    if (error instanceof AppError || isFrameworkError(error)) throw error;
    throw new AppError('MALFORMED_REQUEST', { message: 'The multipart body could not be parsed.' });
  }
  if (Object.keys(errors).length > 0) throw new AppError('VALIDATION_FAILED', { errors });
  return { ...body };
}

export async function registerMultipart(app: FastifyInstance): Promise<void> {
  await app.register(multipart, { limits: LIMITS });
  app.addHook('preValidation', async (request) => {
    if (request.routeOptions.config.consumes !== 'multipart' || !request.isMultipart()) return;
    request.body = await readMultipart(request);
  });
}
