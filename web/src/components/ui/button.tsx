import { Button as AriaButton, type ButtonProps as AriaButtonProps } from 'react-aria-components';
import './ui.css';

export interface ButtonProps extends Omit<AriaButtonProps, 'isPending'> {
  variant?: 'primary' | 'secondary' | 'danger' | 'quiet';
  size?: 'medium' | 'small';
  /**
   * A request it started is running: presses and form submission are ignored, focus stays. (React
   * Aria's own isPending announces through a live region pointing at the button by id, which dangles
   * when the button goes away with the step it finished.)
   */
  isPending?: boolean;
}

export function Button({
  variant = 'primary',
  size = 'medium',
  className,
  isPending = false,
  onPress,
  type,
  ...props
}: ButtonProps) {
  const classes = `button button--${variant}${size === 'small' ? ' button--small' : ''}`;
  return (
    <AriaButton
      {...props}
      {...(isPending ? { type: 'button', 'aria-disabled': true, 'data-pending': true } : { type, onPress })}
      className={typeof className === 'string' ? `${classes} ${className}` : classes}
    />
  );
}
