/**
 * NIP institution codes: the 6-digit NIBSS institution codes (not the 3-digit CBN sort codes) of the
 * institutions a transfer can reach: commercial, merchant and non-interest banks, the payment service
 * banks and mobile-money operators, and the large microfinance banks. The app adds its own
 * institution (999999 / 999998 sandbox, 090999 live defaults) at run time; it is not listed here.
 *
 * Source: clinton-lynx/MansaPay_FE, src/utils/bank.js (GitHub, commit a21f2da0, undated copy of a
 * NIBSS NIP institution list), cross-checked against successdanesy/Bank-Validator, src/banks.js
 * (GitHub, commit 008a97ee, undated) and, for the institutions it already had, against
 * crypticwisdom/up-exchange-platform, dashboard-backend/core/modules/nip_list.py (GitHub, commit
 * a95100c1: a NIBSS FinancialInstitutionListRequest of 316 records, batch 999999210331…, i.e.
 * 2021-03-31); compiled 2026-11-28. Every entry has the same code for the same institution in the
 * first two sources and, where the 2021 list has the code, there too (under a former name for
 * 090405 Moniepoint, then Rolez MFB; 090281 Mint, then Finex MFB; 090426 Tangerine Money, then
 * Assured MFB; 100004 OPay, then Paycom). Left out on purpose: 000020 Heritage Bank (licence revoked
 * by the CBN in June 2024), 000019 Enterprise Bank and 000005 Access (Diamond) (legacy codes of
 * merged banks), 000028 CBN, NIBSS's 999999 NIP virtual bank, wallets of banks already listed, and
 * codes the sources disagree on.
 *
 * To update: take the current NIP financial-institution list (NIBSS, or the sponsor bank's copy of
 * it), change or add entries here with the institution's usual short public name ('… Bank' for
 * banks, '… MFB' for microfinance banks, '… PSB' for payment service banks), keep the array sorted
 * by name (localeCompare 'en'), note the source and date above, and run test/unit/banks.test.ts.
 */

export interface Bank {
  code: string;
  name: string;
  category: 'commercial' | 'merchant' | 'non_interest' | 'mobile_money' | 'microfinance';
}

export const NIP_BANKS: readonly Bank[] = Object.freeze([
  { code: '120001', name: '9PSB', category: 'mobile_money' },
  { code: '090270', name: 'AB MFB', category: 'microfinance' },
  { code: '000014', name: 'Access Bank', category: 'commercial' },
  { code: '090134', name: 'Accion MFB', category: 'microfinance' },
  { code: '090160', name: 'Addosser MFB', category: 'microfinance' },
  { code: '090155', name: 'Advans La Fayette MFB', category: 'microfinance' },
  { code: '000037', name: 'Alternative Bank', category: 'non_interest' },
  { code: '090529', name: 'Bankly MFB', category: 'microfinance' },
  { code: '090117', name: 'Boctrust MFB', category: 'microfinance' },
  { code: '100026', name: 'Carbon', category: 'microfinance' },
  { code: '000009', name: 'Citibank Nigeria', category: 'commercial' },
  { code: '060001', name: 'Coronation Merchant Bank', category: 'merchant' },
  { code: '090159', name: 'Credit Afrique MFB', category: 'microfinance' },
  { code: '000010', name: 'Ecobank Nigeria', category: 'commercial' },
  { code: '090097', name: 'Ekondo MFB', category: 'microfinance' },
  { code: '090328', name: 'Eyowo MFB', category: 'microfinance' },
  { code: '090551', name: 'FairMoney MFB', category: 'microfinance' },
  { code: '060002', name: 'FBNQuest Merchant Bank', category: 'merchant' },
  { code: '000007', name: 'Fidelity Bank', category: 'commercial' },
  { code: '090111', name: 'Fina Trust MFB', category: 'microfinance' },
  { code: '090400', name: 'FINCA MFB', category: 'microfinance' },
  { code: '000016', name: 'First Bank of Nigeria', category: 'commercial' },
  { code: '000003', name: 'First City Monument Bank', category: 'commercial' },
  { code: '070002', name: 'Fortis MFB', category: 'microfinance' },
  { code: '400001', name: 'FSDH Merchant Bank', category: 'merchant' },
  { code: '000027', name: 'Globus Bank', category: 'commercial' },
  { code: '060004', name: 'Greenwich Merchant Bank', category: 'merchant' },
  { code: '000013', name: 'Guaranty Trust Bank', category: 'commercial' },
  { code: '120002', name: 'HopePSB', category: 'mobile_money' },
  { code: '090157', name: 'Infinity MFB', category: 'microfinance' },
  { code: '000006', name: 'Jaiz Bank', category: 'non_interest' },
  { code: '000002', name: 'Keystone Bank', category: 'commercial' },
  { code: '090380', name: 'Kredi Money MFB', category: 'microfinance' },
  { code: '090267', name: 'Kuda MFB', category: 'microfinance' },
  { code: '090177', name: 'LAPO MFB', category: 'microfinance' },
  { code: '090420', name: 'Letshego MFB', category: 'microfinance' },
  { code: '000029', name: 'Lotus Bank', category: 'non_interest' },
  { code: '090281', name: 'Mint MFB', category: 'microfinance' },
  { code: '090455', name: 'Mkobo MFB', category: 'microfinance' },
  { code: '120003', name: 'MoMo PSB', category: 'mobile_money' },
  { code: '120005', name: 'MoneyMaster PSB', category: 'mobile_money' },
  { code: '090405', name: 'Moniepoint MFB', category: 'microfinance' },
  { code: '090194', name: 'NIRSAL MFB', category: 'microfinance' },
  { code: '060003', name: 'Nova Merchant Bank', category: 'merchant' },
  { code: '070001', name: 'NPF MFB', category: 'microfinance' },
  { code: '100004', name: 'OPay', category: 'mobile_money' },
  { code: '000036', name: 'Optimus Bank', category: 'commercial' },
  { code: '100002', name: 'Paga', category: 'mobile_money' },
  { code: '100033', name: 'PalmPay', category: 'mobile_money' },
  { code: '000030', name: 'Parallex Bank', category: 'commercial' },
  { code: '090135', name: 'Personal Trust MFB', category: 'microfinance' },
  { code: '000008', name: 'Polaris Bank', category: 'commercial' },
  { code: '000031', name: 'Premium Trust Bank', category: 'commercial' },
  { code: '000023', name: 'Providus Bank', category: 'commercial' },
  { code: '000024', name: 'Rand Merchant Bank', category: 'merchant' },
  { code: '090198', name: 'Renmoney MFB', category: 'microfinance' },
  { code: '090322', name: 'Rephidim MFB', category: 'microfinance' },
  { code: '090175', name: 'Rubies MFB', category: 'microfinance' },
  { code: '090286', name: 'Safe Haven MFB', category: 'microfinance' },
  { code: '090112', name: 'Seed Capital MFB', category: 'microfinance' },
  { code: '000034', name: 'Signature Bank', category: 'commercial' },
  { code: '120004', name: 'SmartCash PSB', category: 'mobile_money' },
  { code: '090325', name: 'Sparkle MFB', category: 'microfinance' },
  { code: '000012', name: 'Stanbic IBTC Bank', category: 'commercial' },
  { code: '000021', name: 'Standard Chartered Bank', category: 'commercial' },
  { code: '000001', name: 'Sterling Bank', category: 'commercial' },
  { code: '000022', name: 'SunTrust Bank', category: 'commercial' },
  { code: '000026', name: 'Taj Bank', category: 'non_interest' },
  { code: '090426', name: 'Tangerine Money MFB', category: 'microfinance' },
  { code: '000025', name: 'Titan Trust Bank', category: 'commercial' },
  { code: '000018', name: 'Union Bank of Nigeria', category: 'commercial' },
  { code: '000004', name: 'United Bank for Africa', category: 'commercial' },
  { code: '000011', name: 'Unity Bank', category: 'commercial' },
  { code: '090110', name: 'VFD MFB', category: 'microfinance' },
  { code: '000017', name: 'Wema Bank', category: 'commercial' },
  { code: '000015', name: 'Zenith Bank', category: 'commercial' },
]);

/** NIP_BANKS by institution code. */
export const NIP_BANKS_BY_CODE: ReadonlyMap<string, Bank> = new Map(
  NIP_BANKS.map((bank) => [bank.code, bank]),
);
