import type { ReactNode } from 'react';
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

/** Label, input, description and error, associated for assistive technology by React Aria. */
export function TextField({ label, description, errorMessage, placeholder, ...props }: TextFieldProps) {
  return (
    <AriaTextField {...props} className="field">
      <Label className="field__label">{label}</Label>
      <Input className="field__input" placeholder={placeholder} />
      {description ? (
        <Text slot="description" className="field__description">
          {description}
        </Text>
      ) : null}
      <FieldError className="field__error">{errorMessage}</FieldError>
    </AriaTextField>
  );
}
