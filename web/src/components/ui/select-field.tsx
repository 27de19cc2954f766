import type { Key } from 'react-aria-components';
import { Button, Label, ListBox, ListBoxItem, Popover, Select, SelectValue } from 'react-aria-components';
import './ui.css';

export interface SelectOption {
  id: string;
  label: string;
  /** A line under the label in the list (SelectFormField), e.g. what a role may do. */
  description?: string;
}

export interface SelectFieldProps {
  label: string;
  options: SelectOption[];
  value: string;
  onChange: (value: string) => void;
  name?: string;
}

/** A labelled single choice from a short list (React Aria Select: a button and a listbox). */
export function SelectField({ label, options, value, onChange, name }: SelectFieldProps) {
  return (
    <Select
      className="field select"
      selectedKey={value}
      onSelectionChange={(key: Key | null) => {
        if (key !== null) onChange(String(key));
      }}
      {...(name ? { name } : {})}
    >
      <Label className="field__label">{label}</Label>
      <Button className="field__input select__button">
        <SelectValue className="select__value" />
        <span className="select__chevron" aria-hidden="true">
          ▾
        </span>
      </Button>
      <Popover className="select__popover">
        <ListBox className="select__list" items={options}>
          {(option) => (
            <ListBoxItem className="select__option" id={option.id} textValue={option.label}>
              {option.label}
            </ListBoxItem>
          )}
        </ListBox>
      </Popover>
    </Select>
  );
}
