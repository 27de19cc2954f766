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
