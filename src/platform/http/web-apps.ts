import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/errors.js';
import { projectPath } from '../project-files.js';

/** The browser apps (web/README.md), each a single-page app under its own path. */
export const WEB_APPS = ['console', 'dashboard'] as const;
export type WebApp = (typeof WEB_APPS)[number];
export const WEB_APP_PREFIXES: readonly string[] = WEB_APPS.map((name) => `/${name}`);

/** web/dist, wherever the code runs from (src/ with tsx and tests, dist/ with npm start). */
export const WEB_DIST = projectPath('web/dist');

/** A hashed file never changes under its name: browsers keep it a year without asking again. */
const ASSET_MAX_AGE_MS = 365 * 24 * 60 * 60 * 1000;

/** Pages, not API operations: kept out of the OpenAPI documents. */
const HIDDEN = { schema: { hide: true } };

export interface WebAppsOptions {
  /** Where the built apps are; web/dist unless a test points elsewhere. */
  distDir?: string;
}

/**
 * `/console` and `/dashboard`: the app's index.html for the app itself and for every client-side
 * route below it (revalidated on each visit, so a new build is picked up at once), and the built
 * files under `/<app>/assets/` with their content hash in the name, cached as immutable. Security
 * headers, the page CSP among them, come from the platform's onSend hook (http-platform.ts).
 */
export async function registerWebApps(app: FastifyInstance, options: WebAppsOptions = {}): Promise<void> {
  const distDir = options.distDir ?? WEB_DIST;
  for (const name of WEB_APPS) {
    const root = path.join(distDir, name);
    if (!existsSync(path.join(root, 'index.html'))) {
      app.log.warn(
        { app: name, dir: root },
        `the web app /${name} is not built: it answers 503 until \`npm run build\` has run and the server restarted`,
      );
      const unavailable = async () => {
        throw new AppError('SERVICE_UNAVAILABLE', {
          message: `The /${name} app is not built on this server: run \`npm run build\`, then restart it.`,
        });
      };
      app.get(`/${name}`, HIDDEN, unavailable);
      app.get(`/${name}/*`, HIDDEN, unavailable);
      continue;
    }
    // Each app in its own encapsulated context: @fastify/static decorates the reply there only.
    await app.register(async (scope) => {
      await scope.register(fastifyStatic, {
        root: path.join(root, 'assets'),
        prefix: `/${name}/assets/`,
        index: false,
        dotfiles: 'ignore',
        // The assets folder itself is no file: 404 like any other name the build did not make.
        allowedPath: (pathname) => !pathname.endsWith('/'),
        preCompressed: true,
        // The .br or .gz file is chosen by Accept-Encoding: a shared cache must key on it too.
        setHeaders: (response) => response.setHeader('vary', 'accept-encoding'),
        immutable: true,
        maxAge: ASSET_MAX_AGE_MS,
      });
      const page = (_request: FastifyRequest, reply: FastifyReply) =>
        reply.header('cache-control', 'no-cache').sendFile('index.html', root, { cacheControl: false });
      scope.get(`/${name}`, HIDDEN, page);
      scope.get(`/${name}/*`, HIDDEN, page);
    });
  }
}
