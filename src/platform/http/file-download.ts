import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { type AcceptedFileType, FILE_EXTENSIONS } from '../storage/file-type.js';

const binary = { schema: { type: 'string', format: 'binary' } };
/** The bytes as uploaded, served with the type detected from them (never JSON). */
export const FileResponse = Type.Unsafe({
  description: 'The file, with the Content-Type detected from its bytes.',
  content: { 'application/pdf': binary, 'image/jpeg': binary, 'image/png': binary },
});

/**
 * A stored file is only ever downloaded: never framed, and sandboxed should a browser show it
 * anyway (some mobile browsers display a PDF despite `attachment`), so nothing in it runs on this
 * origin. The console previews a PDF by drawing it with pdf.js, an image with an <img>.
 */
export const fileHeaders = (): Record<string, string> => ({
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'; sandbox",
});

/** Streams a stored file as an attachment named `<baseName>.<extension of its type>`. */
export function sendFile(
  reply: FastifyReply,
  file: { contentType: string; size: number; stream: Readable },
  baseName: string,
) {
  const extension = FILE_EXTENSIONS[file.contentType as AcceptedFileType] ?? 'bin';
  return reply
    .type(file.contentType)
    .header('content-length', file.size)
    .header('content-disposition', `attachment; filename="${baseName}.${extension}"`)
    .send(file.stream);
}
