/**
 * The NIP transfer fee, from the operator's schedule. The default is the CBN's guide to bank charges:
 * ₦10 up to ₦5,000, ₦25 up to ₦50,000 and ₦50 above, each plus 7.5 % VAT (1075, 2688 and 5375 kobo).
 * An operator changes the tiers here (docs/operator-guide.md, "Transfer fees").
 */
export interface FeeTier {
  /** The tier applies to amounts up to and including this, in kobo; null: any amount. */
  upToKobo: number | null;
  feeKobo: number;
}

export const NIP_FEE_TIERS: readonly FeeTier[] = [
  { upToKobo: 500_000, feeKobo: 1_000 },
  { upToKobo: 5_000_000, feeKobo: 2_500 },
  { upToKobo: null, feeKobo: 5_000 },
];

/** Value-added tax on the fee, in basis points (7.5 %). */
export const VAT_BASIS_POINTS = 750;

/** The fee of an interbank transfer of `amountKobo`, VAT included, rounded half up to the kobo. */
export function nipFeeKobo(amountKobo: number, tiers: readonly FeeTier[] = NIP_FEE_TIERS): number {
  const tier = tiers.find((candidate) => candidate.upToKobo === null || amountKobo <= candidate.upToKobo);
  if (!tier) throw new Error('the fee schedule has no tier for every amount');
  return tier.feeKobo + Math.floor((tier.feeKobo * VAT_BASIS_POINTS + 5_000) / 10_000);
}
