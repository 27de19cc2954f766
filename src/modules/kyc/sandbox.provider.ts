import type { KycProvider } from './kyc.provider.js';

/** In the sandbox, a BVN starting with 22 passes and any other is not found (docs/decisions.md, "KYC"). */
export const sandboxKycProvider: KycProvider = {
  name: 'sandbox',
  async verifyBvn(subject) {
    return subject.bvn.startsWith('22')
      ? { outcome: 'passed', message: 'BVN verified.', reason: 'verified' }
      : { outcome: 'failed', message: 'BVN not found: check the number and try again.', reason: 'not_found' };
  },
};
