import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { installProcessSafetyNet } from '../../src/process-safety.js';

/**
 * The real app with the process safety net, as src/server.ts runs it, plus a way for a test to
 * make it fail: a line on stdin, `reject` (a promise rejection nobody handles) or `throw` (an
 * exception thrown from a timer, outside any request). SAFETY_GRACE_MS shortens the grace period.
 */
const config = loadConfig(process.env);
const app = await buildApp(config);
const grace = process.env['SAFETY_GRACE_MS'];
installProcessSafetyNet(app, grace ? { graceMs: Number(grace) } : {});
await app.listen({ port: config.PORT, host: config.HOST });

process.stdin.setEncoding('utf8');
process.stdin.on('data', (text: string) => {
  for (const command of text.split('\n')) {
    if (command === 'reject') void Promise.reject(new Error('deliberate rejection that nobody handles'));
    if (command === 'throw') {
      setTimeout(() => {
        throw new Error('deliberate failure thrown from a timer');
      }, 0);
    }
  }
});
