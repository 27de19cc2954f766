import { partnerApi } from './partner-api';

/*
 * The users and invitations routes (issue 31) before the generated types have them: the same client
 * (session channel, anti-forgery token), untyped paths. Goes once the SDK's types are regenerated.
 */
interface Answer {
  // biome-ignore lint/suspicious/noExplicitAny: untyped until the generated types have these routes
  data?: { data?: any };
  error?: unknown;
  response: Response;
}
interface Init {
  body?: unknown;
  params?: { path?: Record<string, string> };
  signal?: AbortSignal;
}
type Call = (path: string, init?: Init) => Promise<Answer>;

export const pendingApi = partnerApi as unknown as { GET: Call; POST: Call; PATCH: Call; DELETE: Call };
