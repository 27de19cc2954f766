import { isDeepStrictEqual } from 'node:util';
import type { Sample } from './load.js';
import type { Parity } from './scenario.js';

const show = (value: unknown) => {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where two JSON values differ, as `path: app … raw …`, at most `limit` of them. */
function differences(app: unknown, raw: unknown, path: string, out: string[], limit: number): void {
  if (out.length >= limit || isDeepStrictEqual(app, raw)) return;
  if (isObject(app) && isObject(raw)) {
    for (const key of new Set([...Object.keys(app), ...Object.keys(raw)])) {
      differences(app[key], raw[key], path ? `${path}.${key}` : key, out, limit);
    }
    return;
  }
  out.push(`${path || 'body'}: app ${show(app)}, raw ${show(raw)}`);
}

/** Same status, same header names, same body once `mask` has removed what differs on every call. */
export function compareSamples(app: Sample, raw: Sample, mask: (body: unknown) => unknown): Parity {
  const problems: string[] = [];
  if (app.status !== raw.status) problems.push(`status: app ${app.status}, raw ${raw.status}`);
  const onlyApp = app.headerNames.filter((name) => !raw.headerNames.includes(name));
  const onlyRaw = raw.headerNames.filter((name) => !app.headerNames.includes(name));
  if (onlyApp.length > 0) problems.push(`headers only from the app: ${onlyApp.join(', ')}`);
  if (onlyRaw.length > 0) problems.push(`headers only from raw: ${onlyRaw.join(', ')}`);
  differences(mask(app.body), mask(raw.body), '', problems, problems.length + 5);
  return { ok: problems.length === 0, problems };
}
