import type {
  FastifyContextConfig,
  FastifyInstance,
  onRequestAsyncHookHandler,
  onSendAsyncHookHandler,
  preHandlerAsyncHookHandler,
  preValidationAsyncHookHandler,
} from 'fastify';

interface RouteHooks {
  onRequest: onRequestAsyncHookHandler;
  preValidation: preValidationAsyncHookHandler;
  preHandler: preHandlerAsyncHookHandler;
  onSend: onSendAsyncHookHandler;
}

/**
 * Attaches a hook only to the routes whose config asks for it, so a route pays for nothing it
 * does not use (a global hook runs, and allocates a promise, on every request). Register before
 * the routes: it acts on routes added afterwards, in every plugin context.
 */
export function addRouteHook<N extends keyof RouteHooks>(
  app: FastifyInstance,
  name: N,
  applies: (config: FastifyContextConfig) => boolean,
  hook: RouteHooks[N],
): void {
  app.addHook('onRoute', (route) => {
    if (!applies((route.config ?? {}) as FastifyContextConfig)) return;
    const existing = (route as unknown as Record<string, unknown>)[name];
    (route as unknown as Record<string, unknown>)[name] =
      existing === undefined ? [hook] : [...(Array.isArray(existing) ? existing : [existing]), hook];
  });
}
