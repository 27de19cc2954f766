import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Messages between the bench and its server children (over the IPC channel). */
export type ChildMessage = { type: 'listening'; port: number } | { type: 'stop' };

export interface ServerChild {
  name: string;
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export interface StartOptions {
  name: string;
  /** Script under bench/, run through tsx. */
  script: string;
  env: NodeJS.ProcessEnv;
  /** The child's stdout (the app's log lines) goes here. */
  logFile: string;
  nodeArgs?: string[];
  startTimeoutMs?: number;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Starts a server in its own process, so the load generator never shares its event loop, and resolves
 * once the child reports the port it listens on.
 */
export async function startServerChild(options: StartOptions): Promise<ServerChild> {
  const log = openSync(options.logFile, 'a');
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), '--import', 'tsx', path.join(REPO_ROOT, 'bench', options.script)],
    { cwd: REPO_ROOT, env: options.env, stdio: ['ignore', log, 'inherit', 'ipc'] },
  );
  closeSync(log);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${options.name} did not start within ${options.startTimeoutMs ?? 60_000} ms`));
    }, options.startTimeoutMs ?? 60_000);
    child.on('message', (message: ChildMessage) => {
      if (message.type !== 'listening') return;
      clearTimeout(timer);
      resolve(message.port);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited before listening (code ${code}, signal ${signal})`));
    });
  });
  return {
    name: options.name,
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? -1,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const done = exited(child);
      child.send({ type: 'stop' } satisfies ChildMessage);
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await done;
      clearTimeout(timer);
    },
  };
}

/** In a child: report the port, and run `close` then exit when the bench says stop or goes away. */
export function serveUntilStopped(port: number, close: () => Promise<void>): void {
  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('message', (message: ChildMessage) => {
    if (message.type === 'stop') shutdown();
  });
  process.on('disconnect', shutdown);
  process.send?.({ type: 'listening', port } satisfies ChildMessage);
}
