import { type FormEvent, type ReactNode, useState } from 'react';
import { Form } from 'react-aria-components';
import { errorMessage } from '@/lib/api/api-error';
import { Alert } from './alert';
import { Button } from './button';
import { ModalDialog } from './modal-dialog';
import { TextAreaField } from './text-area-field';
import './ui.css';

export interface ConfirmDialogProps {
  title: string;
  isOpen: boolean;
  onOpenChange: (isOpen: boolean) => void;
  /** What will happen, and what cannot be undone. */
  children: ReactNode;
  confirmLabel: string;
  pendingLabel?: string;
  tone?: 'primary' | 'danger';
  /** Asks for a reason (required) and passes it to onConfirm. */
  reasonLabel?: string;
  reasonDescription?: string;
  isPending?: boolean;
  error?: unknown;
  onConfirm: (reason: string) => void;
}

/**
 * A decision that needs confirming, as an alert dialog: what it does, an optional required reason,
 * Cancel (focused first by Escape too) and the action. The error of a failed attempt stays in it.
 */
export function ConfirmDialog({
  title,
  isOpen,
  onOpenChange,
  children,
  confirmLabel,
  pendingLabel,
  tone = 'danger',
  reasonLabel,
  reasonDescription,
  isPending = false,
  error,
  onConfirm,
}: ConfirmDialogProps) {
  const [reason, setReason] = useState('');
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onConfirm(reason.trim());
  };
  return (
    <ModalDialog
      title={title}
      role="alertdialog"
      isOpen={isOpen}
      onOpenChange={(open) => {
        if (!open) setReason('');
        onOpenChange(open);
      }}
    >
      {(close) => (
        <Form className="dialog__body" onSubmit={submit}>
          {children}
          {reasonLabel ? (
            <TextAreaField
              label={reasonLabel}
              name="reason"
              value={reason}
              onChange={setReason}
              isRequired
              maxLength={500}
              rows={3}
              errorMessage="Give a reason."
              {...(reasonDescription ? { description: reasonDescription } : {})}
            />
          ) : null}
          {error ? (
            <Alert tone="error">
              <p>{errorMessage(error)}</p>
            </Alert>
          ) : null}
          <div className="dialog__actions">
            <Button variant="secondary" onPress={close}>
              Cancel
            </Button>
            <Button type="submit" variant={tone} isPending={isPending}>
              {isPending ? (pendingLabel ?? confirmLabel) : confirmLabel}
            </Button>
          </div>
        </Form>
      )}
    </ModalDialog>
  );
}
