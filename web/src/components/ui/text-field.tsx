import { type FormEvent, type ReactNode, type RefObject, useEffect, useRef } from 'react';
import {
  TextField as AriaTextField,
  type TextFieldProps as AriaTextFieldProps,
  FieldError,
  Input,
  Label,
  Text,
  type ValidationResult,
} from 'react-aria-components';
import './ui.css';

export interface TextFieldProps extends Omit<AriaTextFieldProps, 'children'> {
  label: string;
  description?: ReactNode;
  /** The message shown when the field is invalid, from the browser's validity details. */
  errorMessage?: string | ((validation: ValidationResult) => string);
  placeholder?: string;
}

/**
 * Once a field shows an error, what is typed into it is checked at once, not when focus leaves it
 * (React Aria commits a field's validation on the native change event, which text inputs fire on
 * blur). Otherwise the error would vanish as the pointer presses the form's button, moving the
 * button up from under it before the release: the first click would miss.
 */
export function recheckShownError(event: FormEvent<HTMLInputElement | HTMLTextAreaElement>): void {
  const field = event.currentTarget;
  if (field.getAttribute('aria-invalid') === 'true') field.dispatchEvent(new Event('change'));
}

/**
 * A field's first error appears when its form is submitted, not when focus leaves it: React Aria
 * commits a field's validation on the native change event, which text inputs fire on blur, and an
 * error line appearing (or a server error going) under a field above the form's button as the
 * pointer presses that button moves it away before the release, so the click is lost. The change
 * event of a field that shows no error is stopped in the field's own element on its way down to the
 * input; recheckShownError's, of a field that shows one, still passes. Submitting still shows every
 * error: the form's check fires `invalid` events, which React Aria commits.
 */
export function useErrorsOnSubmit(ref: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const holdBack = (event: Event) => {
      const field = event.target;
      if (
        (field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement) &&
        field.getAttribute('aria-invalid') !== 'true'
      ) {
        event.stopPropagation();
      }
    };
    element.addEventListener('change', holdBack, true);
    return () => element.removeEventListener('change', holdBack, true);
  }, [ref]);
}

/** Label, input, description and error, associated for assistive technology by React Aria. */
export function TextField({ label, description, errorMessage, placeholder, ...props }: TextFieldProps) {
  const ref = useRef<HTMLDivElement>(null);
  useErrorsOnSubmit(ref);
  return (
    <AriaTextField {...props} ref={ref} className="field">
      <Label className="field__label">{label}</Label>
      <Input className="field__input" placeholder={placeholder} onInput={recheckShownError} />
      {description ? (
        <Text slot="description" className="field__description">
          {description}
        </Text>
      ) : null}
      <FieldError className="field__error">{errorMessage}</FieldError>
    </AriaTextField>
  );
}
