/** Every partner has two worlds: sandbox (simulations) and live. Data never crosses between them. */
export const ENVIRONMENTS = ['sandbox', 'live'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];
