/** The app's path on the server without its trailing slash (`/console`), so `/console` itself matches. */
export const basename = import.meta.env.BASE_URL.replace(/\/$/, '');
