import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** Each app is its own Vite build, served by the API server under /<app>/ (src/platform/http/web-apps.ts). */
export const WEB_APPS = ['console', 'dashboard'] as const;
export type WebApp = (typeof WEB_APPS)[number];

const app = (process.env['WEB_APP'] ?? 'console') as WebApp;
if (!WEB_APPS.includes(app)) throw new Error(`WEB_APP must be one of ${WEB_APPS.join(', ')}, not ${app}`);

const webDir = fileURLToPath(new URL('.', import.meta.url));
const sdkDir = fileURLToPath(new URL('../sdk/', import.meta.url));
const apiServer = process.env['API_URL'] ?? 'http://127.0.0.1:3000';

export default defineConfig({
  root: `${webDir}${app}`,
  base: `/${app}/`,
  publicDir: false,
  plugins: [react()],
  resolve: {
    alias: [
      { find: /^@\//, replacement: `${webDir}src/` },
      // The SDK from its sources (its package points at a dist/ that only its own build makes): the
      // apps take its error type from the package root, the partner API's types from /generated.
      { find: /^@baas\/sdk$/, replacement: `${sdkDir}src/index.ts` },
    ],
  },
  build: {
    outDir: `${webDir}dist/${app}`,
    emptyOutDir: true,
    // Every file a hashed, separately served asset: the page CSP has no data: for scripts or styles.
    assetsInlineLimit: 0,
    // The polyfill is an inline <script>, which the page CSP (script-src 'self') refuses; every
    // browser the apps support has native modulepreload.
    modulePreload: { polyfill: false },
    cssCodeSplit: true,
    // Which chunks each page loads (.vite/manifest.json, never served): scripts/build.mjs reports
    // their sizes from it.
    manifest: true,
    sourcemap: false,
  },
  server: {
    fs: { allow: [webDir, `${sdkDir}src`] },
    proxy: { '/baas': apiServer, '/readyz': apiServer, '/healthz': apiServer },
  },
});
