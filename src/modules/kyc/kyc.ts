import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { KycProvider } from './kyc.provider.js';
import { premblyKycProvider } from './prembly.provider.js';
import { sandboxKycProvider } from './sandbox.provider.js';

export type { KycProvider, KycResult, KycSubject } from './kyc.provider.js';

/** The provider chosen by KYC_PROVIDER. */
export function createKycProvider(config: Config, log: Logger): KycProvider {
  if (config.KYC_PROVIDER === 'prembly') {
    return premblyKycProvider({
      baseUrl: config.KYC_BASE_URL,
      appId: config.KYC_APP_ID ?? '',
      apiKey: config.KYC_API_KEY ?? '',
      timeoutMs: config.KYC_TIMEOUT_MS,
      log,
    });
  }
  return sandboxKycProvider;
}
