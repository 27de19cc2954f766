import type { Environment, PartnerOnboardingStatus } from '@/lib/api/partner-types';
import { EnvironmentSwitch } from './environment-switch';
import './environment.css';

export interface EnvironmentBannerProps {
  environment: Environment;
  onboardingStatus: PartnerOnboardingStatus | undefined;
}

/**
 * At the top of every signed-in page: which environment the page shows (loud when it is live) and
 * the switch between the two.
 */
export function EnvironmentBanner({ environment, onboardingStatus }: EnvironmentBannerProps) {
  const isLive = environment === 'live';
  return (
    <section
      className={`environment-banner environment-banner--${environment}`}
      aria-label="Environment"
      data-environment={environment}
    >
      <div className="environment-banner__text">
        <span className="environment-banner__tag">{isLive ? 'Live' : 'Sandbox'}</span>
        {isLive ? (
          <p>
            <strong>You are working with live data.</strong> Accounts you issue are real bank accounts and
            credits are real money.
          </p>
        ) : (
          <p>Test data only: nothing here moves real money.</p>
        )}
      </div>
      <EnvironmentSwitch environment={environment} onboardingStatus={onboardingStatus} />
    </section>
  );
}
