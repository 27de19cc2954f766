import type { ReactNode } from 'react';
import { Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components';
import './ui.css';

export interface ModalDialogProps {
  title: string;
  /** Controlled open state (without a DialogTrigger). */
  isOpen?: boolean;
  onOpenChange?: (isOpen: boolean) => void;
  /** alertdialog for a decision that needs confirming. */
  role?: 'dialog' | 'alertdialog';
  children: ReactNode | ((close: () => void) => ReactNode);
}

/**
 * A modal dialog: focus moves in and is kept there, Escape closes it and focus returns to what
 * opened it (React Aria). Inside a DialogTrigger it opens from its trigger button.
 */
export function ModalDialog({ title, isOpen, onOpenChange, role = 'dialog', children }: ModalDialogProps) {
  return (
    <ModalOverlay
      className="modal-overlay"
      isDismissable
      {...(isOpen === undefined ? {} : { isOpen })}
      {...(onOpenChange ? { onOpenChange } : {})}
    >
      <Modal className="modal">
        <Dialog className="dialog" role={role}>
          {({ close }) => (
            <>
              <Heading slot="title" className="dialog__title">
                {title}
              </Heading>
              {typeof children === 'function' ? children(close) : children}
            </>
          )}
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
