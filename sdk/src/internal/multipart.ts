/**
 * The body of a multipart call: openapi-fetch types the call by `fields`, and the serializer sends
 * `form` (the same fields and the files) instead.
 */
export function multipart<Body>(fields: Body, form: FormData) {
  return { body: fields, bodySerializer: () => form };
}

/** The form of `fields`, without the absent ones; the caller appends the files. */
export function formOf(fields: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined && value !== null) form.append(name, String(value));
  }
  return form;
}

/** The file's own name when it has one (a File), else `fallback` (a bare Blob). */
export function fileName(file: Blob, fallback: string): string {
  const name = (file as Partial<File>).name;
  return typeof name === 'string' && name !== '' ? name : fallback;
}
