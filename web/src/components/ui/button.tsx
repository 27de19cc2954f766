import { Button as AriaButton, type ButtonProps as AriaButtonProps } from 'react-aria-components';
import './ui.css';

export interface ButtonProps extends AriaButtonProps {
  variant?: 'primary' | 'secondary';
}

export function Button({ variant = 'primary', className, ...props }: ButtonProps) {
  return (
    <AriaButton
      {...props}
      className={
        typeof className === 'string' ? `button button--${variant} ${className}` : `button button--${variant}`
      }
    />
  );
}
