import type { ReactNode } from 'react';
import {
  Button,
  FieldError,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  Select,
  SelectValue,
  Text,
  type ValidationResult,
} from 'react-aria-components';
import type { SelectOption } from './select-field';
import './form-controls.css';
import './ui.css';

export interface SelectFormFieldProps {
  label: string;
  /** The form field's name: the API field, so the Form's server errors land here. */
  name: string;
  options: SelectOption[];
  defaultValue?: string | null;
  /** Controlled value, when the page reacts to the choice. */
  value?: string | null;
  onChange?: (value: string) => void;
  isRequired?: boolean;
  isDisabled?: boolean;
  description?: ReactNode;
  placeholder?: string;
  errorMessage?: string | ((validation: ValidationResult) => string);
}

/**
 * A choice from a short list inside a Form (React Aria Select): it takes part in the form's
 * submission and validation by `name`, required or not, and shows its error below it.
 */
export function SelectFormField({
  label,
  name,
  options,
  defaultValue,
  value,
  onChange,
  isRequired,
  isDisabled,
  description,
  placeholder = 'Choose…',
  errorMessage,
}: SelectFormFieldProps) {
  return (
    <Select
      className="field select select-field"
      name={name}
      placeholder={placeholder}
      {...(value !== undefined ? { selectedKey: value } : {})}
      {...(defaultValue ? { defaultSelectedKey: defaultValue } : {})}
      {...(onChange ? { onSelectionChange: (key) => key !== null && onChange(String(key)) } : {})}
      {...(isRequired ? { isRequired } : {})}
      {...(isDisabled ? { isDisabled } : {})}
    >
      <Label className="field__label">{label}</Label>
      <Button className="field__input select__button">
        {/* The chosen option's label, without its description line. */}
        <SelectValue className="select__value">
          {({ isPlaceholder, selectedText, defaultChildren }) =>
            isPlaceholder ? defaultChildren : selectedText
          }
        </SelectValue>
        <span className="select__chevron" aria-hidden="true">
          ▾
        </span>
      </Button>
      {description ? (
        <Text slot="description" className="field__description">
          {description}
        </Text>
      ) : null}
      <FieldError className="field__error">{errorMessage}</FieldError>
      <Popover className="select__popover">
        <ListBox className="select__list" items={options}>
          {(option) => (
            <ListBoxItem className="select__option" id={option.id} textValue={option.label}>
              {option.description ? (
                <>
                  <Text slot="label">{option.label}</Text>
                  <Text slot="description" className="select__option-description">
                    {option.description}
                  </Text>
                </>
              ) : (
                option.label
              )}
            </ListBoxItem>
          )}
        </ListBox>
      </Popover>
    </Select>
  );
}
