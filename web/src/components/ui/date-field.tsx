import { type CalendarDate, parseDate } from '@internationalized/date';
import { type ReactNode, useContext, useEffect } from 'react';
import {
  DateField as AriaDateField,
  DateFieldStateContext,
  DateInput,
  DateSegment,
  FieldError,
  Label,
  Text,
  type ValidationResult,
} from 'react-aria-components';
import './ui.css';

export interface DateFieldProps {
  label: string;
  /** The form field's name: the form submits the day as `YYYY-MM-DD`. */
  name?: string;
  /** A calendar day as `YYYY-MM-DD`, or '' for none (a controlled field; else defaultValue). */
  value?: string;
  onChange?: (value: string) => void;
  /** The first day an uncontrolled field holds, as `YYYY-MM-DD` ('' or unset: none). */
  defaultValue?: string;
  isRequired?: boolean;
  description?: ReactNode;
  /** The message shown when the field is invalid, from the browser's validity details. */
  errorMessage?: string | ((validation: ValidationResult) => string);
  /** A check of a whole day (`YYYY-MM-DD`): the error sentence, or null when it is fine. */
  validate?: (value: string) => string | null;
}

/** `YYYY-MM-DD` as a calendar day; null for '' or anything that is not one. */
function toCalendarDate(value: string): CalendarDate | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  try {
    return parseDate(value);
  } catch {
    return null;
  }
}

/**
 * Once the field shows an error, a new day is checked at once, not when focus leaves the field
 * (React Aria commits a date field's validation on blur, so the error would go as the pointer
 * presses the form's button, moving the button from under it: the click would miss).
 */
function RecheckShownError() {
  const state = useContext(DateFieldStateContext);
  const day = state?.value?.toString() ?? '';
  const shown = state?.displayValidation.isInvalid ?? false;
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the day changes, not when the check's result does.
  useEffect(() => {
    if (shown) state?.commitValidation();
  }, [day]);
  return null;
}

/**
 * A calendar day typed in the reader's locale's order and separators (12/04/1990 in en-GB and
 * en-NG, 04/12/1990 in en-US), one segment each for day, month and year: unlike `<input
 * type="date">`, which Chromium draws in the browser's own language whatever the page's locale.
 */
export function DateField({
  label,
  name,
  value,
  onChange,
  defaultValue,
  isRequired,
  description,
  errorMessage,
  validate,
}: DateFieldProps) {
  return (
    <AriaDateField
      className="field"
      {...(value !== undefined ? { value: toCalendarDate(value) } : {})}
      {...(defaultValue !== undefined ? { defaultValue: toCalendarDate(defaultValue) } : {})}
      {...(onChange ? { onChange: (day: CalendarDate | null) => onChange(day ? day.toString() : '') } : {})}
      granularity="day"
      shouldForceLeadingZeros
      {...(name ? { name } : {})}
      {...(isRequired ? { isRequired } : {})}
      {...(validate
        ? { validate: (day: CalendarDate | null) => (day ? validate(day.toString()) : null) }
        : {})}
    >
      <Label className="field__label">{label}</Label>
      <DateInput className="field__input date-field__input">
        {(segment) => <DateSegment segment={segment} className="date-field__segment" />}
      </DateInput>
      {description ? (
        <Text slot="description" className="field__description">
          {description}
        </Text>
      ) : null}
      <FieldError className="field__error">{errorMessage}</FieldError>
      <RecheckShownError />
    </AriaDateField>
  );
}
