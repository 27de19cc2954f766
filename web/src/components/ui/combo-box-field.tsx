import { type ReactNode, useRef } from 'react';
import {
  Button as AriaButton,
  ComboBox,
  FieldError,
  Group,
  Input,
  type Key,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  Text,
  useFilter,
} from 'react-aria-components';
import type { SelectOption } from './select-field';
import { recheckShownError, useErrorsOnSubmit } from './text-field';
import './form-controls.css';
import './ui.css';

export interface ComboBoxFieldProps {
  label: string;
  /** The form field's name: the API field, so the Form's server errors land here. */
  name: string;
  options: SelectOption[];
  value: string | null;
  onChange: (value: string | null) => void;
  isRequired?: boolean;
  isDisabled?: boolean;
  description?: ReactNode;
  placeholder?: string;
  /** Shown in the list when nothing matches what was typed. */
  emptyText?: string;
  errorMessage?: string;
}

/**
 * A choice from a long list, found by typing (React Aria ComboBox): what is typed filters the
 * options (any part of the label), the arrow keys move through them and Enter chooses.
 */
export function ComboBoxField({
  label,
  name,
  options,
  value,
  onChange,
  isRequired,
  isDisabled,
  description,
  placeholder,
  emptyText = 'Nothing matches.',
  errorMessage,
}: ComboBoxFieldProps) {
  const { contains } = useFilter({ sensitivity: 'base' });
  const ref = useRef<HTMLDivElement>(null);
  useErrorsOnSubmit(ref);
  return (
    <ComboBox
      ref={ref}
      className="field combo-box"
      name={name}
      formValue="key"
      defaultItems={options}
      defaultFilter={contains}
      selectedKey={value}
      onSelectionChange={(key: Key | null) => onChange(key === null ? null : String(key))}
      allowsEmptyCollection
      {...(isRequired ? { isRequired } : {})}
      {...(isDisabled ? { isDisabled } : {})}
    >
      <Label className="field__label">{label}</Label>
      <Group className="field__input combo-box__group">
        <Input className="combo-box__input" placeholder={placeholder} onInput={recheckShownError} />
        <AriaButton className="combo-box__button" aria-label={`Show all: ${label}`}>
          <span aria-hidden="true">▾</span>
        </AriaButton>
      </Group>
      {description ? (
        <Text slot="description" className="field__description">
          {description}
        </Text>
      ) : null}
      <FieldError className="field__error">{errorMessage}</FieldError>
      <Popover className="select__popover combo-box__popover">
        <ListBox
          className="select__list"
          renderEmptyState={() => <p className="combo-box__empty">{emptyText}</p>}
        >
          {(option: SelectOption) => (
            <ListBoxItem className="select__option" id={option.id} textValue={option.label}>
              {option.label}
            </ListBoxItem>
          )}
        </ListBox>
      </Popover>
    </ComboBox>
  );
}
