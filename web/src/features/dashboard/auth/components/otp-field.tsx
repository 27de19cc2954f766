import { ApiError, type ErrorCode } from '@baas/sdk';
import { TextField } from '@/components/ui/text-field';
import { validationMessage } from '@/lib/validation-message';

const CODE_ERRORS: Partial<Record<ErrorCode, string>> = {
  OTP_INVALID: 'That code is not right. Check it against the latest e-mail we sent you.',
  OTP_EXPIRED: 'That code has expired. Send a new code and enter it here.',
  OTP_ATTEMPTS_EXCEEDED: 'Too many wrong codes: this code no longer works. Send a new code.',
};

/** What a refused code means, saying what to do next; null for any other error. */
export function codeErrorMessage(error: unknown): string | null {
  return error instanceof ApiError && error.errorCode ? (CODE_ERRORS[error.errorCode] ?? null) : null;
}

/**
 * The e-mailed 6-digit code in one input, so a pasted code ("123 456", or a whole sentence around
 * it) lands at once: everything but digits is dropped and the first six kept. The browser may offer
 * the code itself (autocomplete="one-time-code").
 */
export function OtpField({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  return (
    <div className="otp-input">
      <TextField
        name="otp"
        label="6-digit code"
        autoComplete="one-time-code"
        inputMode="numeric"
        pattern="[0-9]{6}"
        spellCheck="false"
        value={value}
        onChange={(text) => onChange(text.replace(/\D/g, '').slice(0, 6))}
        isRequired
        description="From the e-mail we sent you. It is valid for 10 minutes."
        errorMessage={validationMessage('Enter the 6-digit code.', 'The code has 6 digits.')}
      />
    </div>
  );
}
