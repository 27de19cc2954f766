import type { ReactNode } from 'react';
import { FieldError, Label, Radio, RadioGroup, Text, type ValidationResult } from 'react-aria-components';
import './form-controls.css';
import './ui.css';

export interface RadioOption {
  id: string;
  label: string;
  isDisabled?: boolean;
}

export interface RadioGroupFieldProps {
  label: string;
  name: string;
  options: RadioOption[];
  value?: string;
  defaultValue?: string;
  onChange?: (value: string) => void;
  isRequired?: boolean;
  /** Shown but not changeable (a role that may read the setting only). */
  isDisabled?: boolean;
  orientation?: 'horizontal' | 'vertical';
  description?: ReactNode;
  errorMessage?: string | ((validation: ValidationResult) => string);
}

/** A labelled set of radio buttons (React Aria RadioGroup: arrow keys move the choice). */
export function RadioGroupField({
  label,
  name,
  options,
  value,
  defaultValue,
  onChange,
  isRequired,
  isDisabled,
  orientation = 'horizontal',
  description,
  errorMessage,
}: RadioGroupFieldProps) {
  return (
    <RadioGroup
      className="field radio-group"
      name={name}
      orientation={orientation}
      {...(value !== undefined ? { value } : {})}
      {...(defaultValue !== undefined ? { defaultValue } : {})}
      {...(onChange ? { onChange } : {})}
      {...(isRequired ? { isRequired } : {})}
      {...(isDisabled ? { isDisabled } : {})}
    >
      <Label className="field__label">{label}</Label>
      <div className="radio-group__options">
        {options.map((option) => (
          <Radio key={option.id} value={option.id} className="radio" isDisabled={option.isDisabled ?? false}>
            <span className="radio__mark" aria-hidden="true" />
            {option.label}
          </Radio>
        ))}
      </div>
      {description ? (
        <Text slot="description" className="field__description">
          {description}
        </Text>
      ) : null}
      <FieldError className="field__error">{errorMessage}</FieldError>
    </RadioGroup>
  );
}
