import { ApiError } from '@baas/sdk';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { describeWait, errorMessage, retryAfterSeconds } from '@/lib/api/api-error';

export interface ResendCodeProps {
  onResend: () => void;
  isPending: boolean;
  isSuccess: boolean;
  error: Error | null;
  email: string;
}

/** "Send a new code", and what came of it: sent (replacing the old code), or the once-a-minute limit. */
export function ResendCode({ onResend, isPending, isSuccess, error, email }: ResendCodeProps) {
  return (
    <div className="auth-resend">
      <p>Did not get it? Check your spam folder, or ask for a new code (one a minute).</p>
      <Button variant="secondary" size="small" isPending={isPending} isDisabled={!email} onPress={onResend}>
        {isPending ? 'Sending…' : 'Send a new code'}
      </Button>
      {isSuccess ? (
        <Alert tone="success">
          <p>A new code is on its way to {email}. It replaces the previous one.</p>
        </Alert>
      ) : null}
      {error ? (
        <Alert tone="error">
          <p>
            {error instanceof ApiError && error.errorCode === 'RATE_LIMITED'
              ? `A new code can be sent once a minute. Try again in ${describeWait(retryAfterSeconds(error) ?? 60)}.`
              : errorMessage(error)}
          </p>
        </Alert>
      ) : null}
    </div>
  );
}
