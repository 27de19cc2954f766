import { Switch } from 'react-aria-components';
import { errorMessage } from '@/lib/api/api-error';
import type { Environment, PartnerOnboardingStatus } from '@/lib/api/partner-types';
import { useSwitchEnvironment } from '../api/environment';
import '@/components/ui/form-controls.css';
import './environment.css';

export interface EnvironmentSwitchProps {
  environment: Environment;
  /** Live is open only to an approved (`active`) partner; unknown while the profile loads. */
  onboardingStatus: PartnerOnboardingStatus | undefined;
}

const LOCKED_REASON: Partial<Record<PartnerOnboardingStatus, string>> = {
  in_progress: 'Live opens once your onboarding is approved.',
  under_review: 'Live opens once our review approves you.',
  rejected: 'Live is closed: your application was rejected.',
  suspended: 'Live is suspended by the operator.',
};

/** The sandbox/live switch in every page's header, with why live is not available yet. */
export function EnvironmentSwitch({ environment, onboardingStatus }: EnvironmentSwitchProps) {
  const switchEnvironment = useSwitchEnvironment();
  const isLive = environment === 'live';
  const liveAllowed = onboardingStatus === 'active';
  // Going back to the sandbox is always allowed, so only switching on is locked.
  const isDisabled = switchEnvironment.isPending || (!isLive && !liveAllowed);
  const reason = !isLive && onboardingStatus ? LOCKED_REASON[onboardingStatus] : undefined;
  const noteId = 'environment-switch-note';

  return (
    <div className="environment-switch">
      <Switch
        className="switch"
        isSelected={isLive}
        isDisabled={isDisabled}
        onChange={(selected) => switchEnvironment.mutate(selected ? 'live' : 'sandbox')}
        {...(reason ? { 'aria-describedby': noteId } : {})}
      >
        <span className="switch__track" aria-hidden="true">
          <span className="switch__thumb" />
        </span>
        Live mode
      </Switch>
      {reason ? (
        <span className="environment-switch__note" id={noteId}>
          {reason}
        </span>
      ) : null}
      {switchEnvironment.error ? (
        <span className="environment-switch__error" role="alert">
          {errorMessage(switchEnvironment.error)}
        </span>
      ) : null}
    </div>
  );
}
