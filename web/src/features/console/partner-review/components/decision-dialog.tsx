import { ApiError } from '@baas/sdk';
import type { FormEvent } from 'react';
import { Form } from 'react-aria-components';
import { Alert, FieldErrorList } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { ModalDialog } from '@/components/ui/modal-dialog';
import { TextAreaField } from '@/components/ui/text-area-field';
import { errorMessage } from '@/lib/api/api-error';

export interface DecisionDialogProps {
  isOpen: boolean;
  onOpenChange: (isOpen: boolean) => void;
  title: string;
  description: string;
  confirmLabel: string;
  tone?: 'primary' | 'danger';
  /** A reason is asked for (and required): the partner is shown it. */
  reasonLabel?: string;
  isPending: boolean;
  /** Shown in the dialog: a problem with what was typed (422); others are shown beside the action. */
  error: Error | null;
  onConfirm: (reason: string, internalNote: string) => void;
}

/** Confirms a decision, with the reason the partner will read when one is needed. */
export function DecisionDialog({
  isOpen,
  onOpenChange,
  title,
  description,
  confirmLabel,
  tone = 'primary',
  reasonLabel,
  isPending,
  error,
  onConfirm,
}: DecisionDialogProps) {
  const fieldErrors =
    error instanceof ApiError && error.errorCode === 'VALIDATION_FAILED' ? error.errors : null;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    onConfirm(String(form.get('reason') ?? '').trim(), String(form.get('internal_note') ?? '').trim());
  };
  return (
    <ModalDialog title={title} isOpen={isOpen} onOpenChange={onOpenChange} role="alertdialog">
      {(close) => (
        <Form className="dialog__body" onSubmit={submit}>
          <p>{description}</p>
          {reasonLabel ? (
            <TextAreaField
              name="reason"
              label={reasonLabel}
              description="The partner sees this reason. Say what to change or why."
              isRequired
              maxLength={1000}
              autoFocus
              errorMessage="Give a reason: the partner is shown it."
            />
          ) : null}
          {reasonLabel ? (
            <TextAreaField
              name="internal_note"
              label="Internal note (optional)"
              description="Only operators see this note, on the partner's record and in the audit log. The partner never does: put here what it must not be told."
              maxLength={2000}
            />
          ) : null}
          {fieldErrors ? (
            <Alert tone="error">
              <p>{errorMessage(error)}</p>
              <FieldErrorList errors={fieldErrors} />
            </Alert>
          ) : null}
          <div className="dialog__actions">
            <Button variant="secondary" onPress={close} isDisabled={isPending}>
              Cancel
            </Button>
            <Button type="submit" variant={tone} isPending={isPending}>
              {confirmLabel}
            </Button>
          </div>
        </Form>
      )}
    </ModalDialog>
  );
}
