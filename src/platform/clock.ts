/** The source of "now" for every rule that depends on time (OTP and session expiry, lockouts). */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export const toIso = (epochMs: number): string => new Date(epochMs).toISOString();
