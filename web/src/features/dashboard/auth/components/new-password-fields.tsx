import { useState } from 'react';
import { TextField } from '@/components/ui/text-field';
import { validationMessage } from '@/lib/validation-message';

/**
 * A new password and its confirmation, with the API's rules (8 to 128 characters; common passwords
 * are refused by the server, whose error shows under the field). Registration and accepting an
 * invitation use the same fields; the form reads `password` and `password_confirmation`.
 */
export function NewPasswordFields() {
  const [password, setPassword] = useState('');
  return (
    <>
      <TextField
        name="password"
        type="password"
        label="Password"
        autoComplete="new-password"
        description="At least 8 characters. Common passwords are refused."
        minLength={8}
        maxLength={128}
        value={password}
        onChange={setPassword}
        isRequired
        errorMessage={validationMessage('Choose a password.', 'Use at least 8 characters for your password.')}
      />
      <TextField
        name="password_confirmation"
        type="password"
        label="Confirm password"
        autoComplete="new-password"
        isRequired
        validate={(value) => (value && value !== password ? 'The passwords do not match.' : null)}
        errorMessage={validationMessage('Enter the password again.')}
      />
    </>
  );
}
