import { type ReactNode, useRef } from 'react';
import {
  TextField as AriaTextField,
  type TextFieldProps as AriaTextFieldProps,
  FieldError,
  Label,
  Text,
  TextArea,
} from 'react-aria-components';
import { recheckShownError, useErrorsOnSubmit } from './text-field';
import './ui.css';

export interface TextAreaFieldProps extends Omit<AriaTextFieldProps, 'children'> {
  label: string;
  description?: ReactNode;
  errorMessage?: string;
  rows?: number;
}

/** A multi-line text field with its label, description and error, associated by React Aria. */
export function TextAreaField({ label, description, errorMessage, rows = 4, ...props }: TextAreaFieldProps) {
  const ref = useRef<HTMLDivElement>(null);
  useErrorsOnSubmit(ref);
  return (
    <AriaTextField {...props} ref={ref} className="field">
      <Label className="field__label">{label}</Label>
      <TextArea className="field__input field__textarea" rows={rows} onInput={recheckShownError} />
      {description ? (
        <Text slot="description" className="field__description">
          {description}
        </Text>
      ) : null}
      <FieldError className="field__error">{errorMessage}</FieldError>
    </AriaTextField>
  );
}
