import type { Clock } from '../../src/platform/clock.js';

/** A clock the test moves by hand, so expiry rules are tested without sleeping. */
export class TestClock implements Clock {
  private offset = 0;
  now(): number {
    return Date.now() + this.offset;
  }
  advance(ms: number): void {
    this.offset += ms;
  }
}

/**
 * Moves the app's clock so that it reads `iso` now; returns a function that moves it back.
 * Sessions are clock-based, so create partners after pinning the clock.
 */
export function pinClock(t: { clock: TestClock }, iso: string): () => void {
  const delta = Date.parse(iso) - t.clock.now();
  t.clock.advance(delta);
  return () => t.clock.advance(-delta);
}

/** YYYY-MM-DD of a UTC date `years` years and `days` days before the app clock's today. */
export function dateBefore(t: { clock: TestClock }, years: number, days = 0): string {
  const now = new Date(t.clock.now());
  const date = new Date(Date.UTC(now.getUTCFullYear() - years, now.getUTCMonth(), now.getUTCDate() - days));
  return date.toISOString().slice(0, 10);
}

/** Resolves once Date.now() has moved on, so ids made by consecutive requests sort in creation order. */
export async function nextMillisecond(): Promise<void> {
  const start = Date.now();
  while (Date.now() === start) await new Promise<void>((resolve) => setImmediate(resolve));
}
