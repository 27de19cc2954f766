import { ApiError } from '@baas/sdk';
import { useMemo } from 'react';
import type { ValidationResult } from 'react-aria-components';

/**
 * A field's error text: ours for the browser's own checks (a missing value, a wrong format), the
 * server's sentence for an error the API named in its `errors` map (shown through the Form's
 * validationErrors, which React Aria reports as a custom error).
 */
export function validationMessage(missing: string, invalid?: string) {
  return ({ validationDetails, validationErrors }: ValidationResult): string => {
    if (validationDetails.valueMissing) return missing;
    if (validationDetails.customError || invalid === undefined) return validationErrors.join(' ');
    return invalid;
  };
}

/**
 * The API's 422 `errors` (`{password: ["must be at least 8 characters"]}`) as sentences a person
 * reads next to the field: "Password must be at least 8 characters." Fields without a label keep
 * their API name.
 */
export function fieldErrorSentences(
  errors: Record<string, string[]>,
  labels: Record<string, string>,
): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(errors).map(([field, messages]) => [
      field,
      messages.map((message) => sentence(labels[field] ?? field, message)),
    ]),
  );
}

function sentence(label: string, message: string): string {
  const text = /^[A-Z]/.test(message) ? message : `${label} ${message}`;
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** "must match password" → "Must match password." */
const capitalized = (message: string) =>
  `${message.charAt(0).toUpperCase()}${message.slice(1)}${/[.!?]$/.test(message) ? '' : '.'}`;

/**
 * The API's 422 field errors carried by `error`, as sentences for a Form's validationErrors. The
 * object keeps its identity while the error does: React Aria shows a server error again whenever
 * the object changes, so one made afresh on every render would undo the clearing a correction does
 * and keep the form from submitting.
 */
export function useFieldErrors(error: unknown): Record<string, string[]> {
  return useMemo(
    () =>
      error instanceof ApiError && error.errorCode === 'VALIDATION_FAILED'
        ? Object.fromEntries(
            Object.entries(error.errors).map(([field, messages]) => [field, messages.map(capitalized)]),
          )
        : {},
    [error],
  );
}
