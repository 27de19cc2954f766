import { ApiError } from '@baas/sdk';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { Form } from 'react-aria-components';
import { AuthenticatorKey } from '@/components/second-factor/authenticator-key';
import { RecoveryCodes } from '@/components/second-factor/recovery-codes';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { DateTime } from '@/components/ui/date-time';
import { ModalDialog } from '@/components/ui/modal-dialog';
import { QueryView } from '@/components/ui/query-view';
import { TextField } from '@/components/ui/text-field';
import { errorMessage } from '@/lib/api/api-error';
import {
  type SecondFactorStatus,
  secondFactorQuery,
  useConfirmSecondFactor,
  useDisableSecondFactor,
  useStartSecondFactor,
} from '../api/second-factor';

/** The card's id: the SECOND_FACTOR_REQUIRED message links here (/settings/users#second-factor). */
export const SECOND_FACTOR_CARD_ID = 'second-factor';

/** Moves focus to `ref` when it appears (a step that replaced the button that was pressed). */
function useFocusOnMount<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => ref.current?.focus(), []);
  return ref;
}

/**
 * The signed-in user's own second factor (docs/partner-guide.md, "Second factor"): off → the key
 * for an authenticator app → its first code → the recovery codes, shown once. On: since when, and
 * turning it off with the password (refused while the business requires one of everyone).
 */
export function SecondFactorCard({ email }: { email: string }) {
  const status = useQuery(secondFactorQuery);
  const start = useStartSecondFactor();
  const confirm = useConfirmSecondFactor();
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const [turningOff, setTurningOff] = useState(false);
  const [notice, setNotice] = useState('');
  const headingId = useId();
  const cardRef = useRef<HTMLDivElement>(null);

  // Opened from the link of a SECOND_FACTOR_REQUIRED message: the card is where to go.
  useEffect(() => {
    if (window.location.hash === `#${SECOND_FACTOR_CARD_ID}`) {
      cardRef.current?.scrollIntoView({ block: 'start' });
      cardRef.current?.querySelector<HTMLElement>('h3')?.focus();
    }
  }, []);

  return (
    <div id={SECOND_FACTOR_CARD_ID} ref={cardRef} className="users__second-factor-anchor">
      <Card labelledBy={headingId} className="users__second-factor">
        <h3 id={headingId} tabIndex={-1}>
          Your second factor
        </h3>
        <p role="status" className="users__notice">
          {notice}
        </p>
        {recoveryCodes ? (
          <RecoveryCodesStep
            codes={recoveryCodes}
            email={email}
            onDone={() => {
              setRecoveryCodes(null);
              start.reset();
              confirm.reset();
              setNotice('Your second factor is on. Your next sign-in asks for a code.');
            }}
          />
        ) : start.data?.secret && start.data.otpauth_url ? (
          // (Both are null only in an idempotent replay, which the dashboard never asks for.)
          <AuthenticatorStep
            secret={start.data.secret}
            otpauthUrl={start.data.otpauth_url}
            email={email}
            isPending={confirm.isPending}
            error={confirm.error}
            onSubmit={(code) =>
              confirm.mutate(code, { onSuccess: (data) => setRecoveryCodes(data.recovery_codes) })
            }
            onCancel={() => {
              start.reset();
              confirm.reset();
            }}
          />
        ) : (
          <QueryView
            query={status}
            loading="Loading your second factor…"
            errorTitle="Your second factor could not be loaded."
          >
            {(data) => (
              <Summary
                status={data}
                isStarting={start.isPending}
                onTurnOn={() => {
                  setNotice('');
                  start.mutate();
                }}
                onTurnOff={() => {
                  setNotice('');
                  setTurningOff(true);
                }}
              />
            )}
          </QueryView>
        )}
        {start.error ? (
          <Alert tone="error" title="The second factor could not be started.">
            <p>{errorMessage(start.error)}</p>
          </Alert>
        ) : null}
        <TurnOffDialog
          email={email}
          isOpen={turningOff}
          onClose={() => setTurningOff(false)}
          onTurnedOff={() => {
            setTurningOff(false);
            setNotice('Your second factor is off. Your next sign-in asks for your password only.');
          }}
        />
      </Card>
    </div>
  );
}

function Summary({
  status,
  isStarting,
  onTurnOn,
  onTurnOff,
}: {
  status: SecondFactorStatus;
  isStarting: boolean;
  onTurnOn: () => void;
  onTurnOff: () => void;
}) {
  const everyone = status.policy === 'everyone';
  if (!status.enabled) {
    return (
      <div className="users__second-factor-body">
        <p>
          <Badge tone="neutral">Off</Badge> Signing in asks for your password only.{' '}
          {everyone
            ? 'Your business requires a second factor for everyone: turn it on, then sign in again.'
            : 'Moving live money from the dashboard needs a sign-in with a second factor.'}
        </p>
        <p className="muted">
          With a second factor, signing in also asks for a 6-digit code from an authenticator app on your
          phone (such as 1Password, Google Authenticator or Microsoft Authenticator).
        </p>
        <div>
          <Button onPress={onTurnOn} isPending={isStarting}>
            {isStarting ? 'Starting…' : 'Turn on'}
          </Button>
        </div>
      </div>
    );
  }
  return (
    <div className="users__second-factor-body">
      <p>
        <Badge tone="success">On</Badge> Since{' '}
        {status.enrolled_at ? <DateTime value={status.enrolled_at} /> : 'an earlier date'}. Signing in asks
        for a code from your authenticator app. {status.recovery_codes_left}{' '}
        {status.recovery_codes_left === 1 ? 'recovery code is' : 'recovery codes are'} left.
      </p>
      {status.locked ? (
        <Alert tone="warning">
          <p>Too many wrong codes locked it: ask an owner or admin to reset your second factor.</p>
        </Alert>
      ) : null}
      {status.this_session ? null : (
        <p className="muted">This session was made without it: sign in again to use it here.</p>
      )}
      <div>
        <Button variant="secondary" onPress={onTurnOff}>
          Turn off
        </Button>
      </div>
    </div>
  );
}

function AuthenticatorStep({
  secret,
  otpauthUrl,
  email,
  isPending,
  error,
  onSubmit,
  onCancel,
}: {
  secret: string;
  otpauthUrl: string;
  email: string;
  isPending: boolean;
  error: Error | null;
  onSubmit: (code: string) => void;
  onCancel: () => void;
}) {
  const heading = useFocusOnMount<HTMLHeadingElement>();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onSubmit(String(new FormData(event.currentTarget).get('code') ?? '').replace(/\s/g, ''));
  };
  return (
    <div className="users__second-factor-body">
      <h4 ref={heading} tabIndex={-1}>
        Connect your authenticator app
      </h4>
      <p>
        Scan this QR code with an authenticator app, or enter the key by hand. Then type the code the app
        shows.
      </p>
      <AuthenticatorKey secret={secret} otpauthUrl={otpauthUrl} email={email} />
      <Form className="users__second-factor-form" onSubmit={submit}>
        <TextField
          name="code"
          label="6-digit code from the app"
          autoComplete="one-time-code"
          inputMode="numeric"
          isRequired
          pattern="[0-9 ]{6,7}"
          description="The code the app shows now, to confirm it is set up."
          errorMessage={({ validationDetails }) =>
            validationDetails.valueMissing ? 'Enter the code from your app.' : 'The code has 6 digits.'
          }
        />
        {error ? (
          <Alert tone="error">
            <p>{errorMessage(error)}</p>
          </Alert>
        ) : null}
        <div className="users__actions">
          <Button type="submit" isPending={isPending}>
            {isPending ? 'Checking…' : 'Turn on second factor'}
          </Button>
          <Button variant="secondary" onPress={onCancel}>
            Cancel
          </Button>
        </div>
      </Form>
    </div>
  );
}

function RecoveryCodesStep({ codes, email, onDone }: { codes: string[]; email: string; onDone: () => void }) {
  const wrapper = useRef<HTMLDivElement>(null);
  useEffect(() => wrapper.current?.querySelector<HTMLElement>('h4')?.focus(), []);
  return (
    <div ref={wrapper} className="users__second-factor-body">
      <RecoveryCodes
        codes={codes}
        email={email}
        appName="BaaS Dashboard"
        fileName="baas-dashboard-recovery-codes.txt"
        continueLabel="Done"
        headingLevel={4}
        note={
          <Alert tone="success" title="Your second factor is on.">
            <p>
              This session stays as it was. Your next sign-in asks for a code from your app: sign in again to
              move live money with this factor.
            </p>
          </Alert>
        }
        onDone={onDone}
      />
    </div>
  );
}

function TurnOffDialog({
  email,
  isOpen,
  onClose,
  onTurnedOff,
}: {
  email: string;
  isOpen: boolean;
  onClose: () => void;
  onTurnedOff: () => void;
}) {
  const disable = useDisableSecondFactor();
  const error = disable.error;
  const enforced = error instanceof ApiError && error.errorCode === 'SECOND_FACTOR_ENFORCED';
  const wrongPassword = error instanceof ApiError && error.status === 422;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    disable.mutate(String(new FormData(event.currentTarget).get('password') ?? ''), {
      onSuccess: onTurnedOff,
    });
  };
  return (
    <ModalDialog
      title="Turn off your second factor?"
      isOpen={isOpen}
      onOpenChange={(open) => {
        if (!open) {
          disable.reset();
          onClose();
        }
      }}
    >
      {(closeDialog) => (
        <Form className="dialog__body" onSubmit={submit}>
          <p>Signing in will ask for your password only, and your recovery codes stop working.</p>
          <input type="hidden" name="username" autoComplete="username" value={email} readOnly />
          <TextField
            name="password"
            type="password"
            label="Your password"
            autoComplete="current-password"
            isRequired
            errorMessage="Enter your password."
          />
          {error ? (
            <Alert tone="error">
              <p>
                {enforced
                  ? 'Your business requires a second factor for everyone: it cannot be turned off. An owner can change this in Settings → Security.'
                  : wrongPassword
                    ? 'That password is not right.'
                    : errorMessage(error)}
              </p>
            </Alert>
          ) : null}
          <div className="dialog__actions">
            <Button variant="secondary" onPress={closeDialog}>
              Cancel
            </Button>
            <Button type="submit" isPending={disable.isPending}>
              {disable.isPending ? 'Turning off…' : 'Turn off'}
            </Button>
          </div>
        </Form>
      )}
    </ModalDialog>
  );
}
