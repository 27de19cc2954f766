/*
 * The NIP fee as the server charges it (docs/partner-guide.md, "Sending money"), to show before
 * sending: ₦10 up to ₦5,000, ₦25 up to ₦50,000 and ₦50 above, each plus 7.5 % VAT. A transfer to
 * this institution's own bank code is a book transfer, free. The 202 answer carries the fee charged.
 */
const TIERS: ReadonlyArray<{ upToKobo: number | null; feeKobo: number }> = [
  { upToKobo: 500_000, feeKobo: 1_000 },
  { upToKobo: 5_000_000, feeKobo: 2_500 },
  { upToKobo: null, feeKobo: 5_000 },
];
const VAT_BASIS_POINTS = 750;

export function transferFeeKobo(amountKobo: number, isBookTransfer: boolean): number {
  if (isBookTransfer) return 0;
  const tier = TIERS.find((candidate) => candidate.upToKobo === null || amountKobo <= candidate.upToKobo);
  const fee = tier?.feeKobo ?? 0;
  return fee + Math.floor((fee * VAT_BASIS_POINTS + 5_000) / 10_000);
}

/** "1500.50" (parseNairaInput's form) → 150050. */
export function koboOf(naira: string): number {
  const [whole = '0', fraction = '00'] = naira.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0').slice(0, 2));
}
