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
 * does not use (a global hook runs, and allocates a promise, on every request). The hook is made
 * for its route (`hookFor` gets the route's config): reading `request.routeOptions` instead would
 * build and freeze a new object at every access. Register before the routes: it acts on routes
 * added afterwards, in every plugin context.
 */
export function addRouteHook<N extends keyof RouteHooks>(
  app: FastifyInstance,
  name: N,
  applies: (config: FastifyContextConfig) => boolean,
  hookFor: (config: FastifyContextConfig) => RouteHooks[N],
): void {
  app.addHook('onRoute', (route) => {
    const config = (route.config ?? {}) as FastifyContextConfig;
    if (!applies(config)) return;
    const hook = hookFor(config);
    const existing = (route as unknown as Record<string, unknown>)[name];
    (route as unknown as Record<string, unknown>)[name] =
      existing === undefined ? [hook] : [...(Array.isArray(existing) ? existing : [existing]), hook];
  });
}
