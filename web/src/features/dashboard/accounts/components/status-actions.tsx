import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { UserText } from '@/components/ui/user-text';
import type { VirtualAccount } from '@/lib/api/partner-types';
import { useAccess } from '@/lib/partner-roles';
import { type StatusAction, useChangeAccountStatus } from '../api/accounts';

const ACTIONS: Record<
  StatusAction,
  {
    button: string;
    title: string;
    confirm: string;
    pending: string;
    text: string;
    tone: 'primary' | 'danger';
  }
> = {
  deactivate: {
    button: 'Deactivate',
    title: 'Deactivate this account?',
    confirm: 'Deactivate account',
    pending: 'Deactivating…',
    text: 'Credits to it will be refused until you reactivate it. The customer keeps the number.',
    tone: 'danger',
  },
  reactivate: {
    button: 'Reactivate',
    title: 'Reactivate this account?',
    confirm: 'Reactivate account',
    pending: 'Reactivating…',
    text: 'It takes credits again from now on.',
    tone: 'primary',
  },
  close: {
    button: 'Close account',
    title: 'Close this account for good?',
    confirm: 'Close account',
    pending: 'Closing…',
    text: 'A closed account takes no credits and can never be reopened; its number is never issued again. The customer may be given a new account.',
    tone: 'danger',
  },
};

/** Deactivate, reactivate or close, each confirmed (with a reason, kept on the account and in its event). */
export function StatusActions({ account }: { account: VirtualAccount }) {
  const change = useChangeAccountStatus(account.account_number);
  const [action, setAction] = useState<StatusAction | null>(null);
  // A role without money rights reads why beside Send money (the same reason).
  const allowed = useAccess('money').allowed;
  if (account.status === 'closed' || !allowed) return null;
  const available: StatusAction[] =
    account.status === 'active' ? ['deactivate', 'close'] : ['reactivate', 'close'];
  const shown = action ? ACTIONS[action] : null;

  return (
    <div className="account__actions">
      {available.map((name) => (
        <Button
          key={name}
          variant={name === 'reactivate' ? 'primary' : 'secondary'}
          size="small"
          onPress={() => setAction(name)}
        >
          {ACTIONS[name].button}
        </Button>
      ))}
      <ConfirmDialog
        title={shown?.title ?? ''}
        isOpen={action !== null}
        onOpenChange={(open) => {
          if (!open) {
            change.reset();
            setAction(null);
          }
        }}
        tone={shown?.tone ?? 'danger'}
        confirmLabel={shown?.confirm ?? ''}
        pendingLabel={shown?.pending ?? ''}
        {...(action === 'reactivate'
          ? {}
          : {
              reasonLabel: 'Reason',
              reasonDescription: 'Kept on the account, in the audit trail and in the status-change event.',
            })}
        isPending={change.isPending}
        error={change.error}
        onConfirm={(reason) =>
          action && change.mutate({ action, reason }, { onSuccess: () => setAction(null) })
        }
      >
        <p>
          Account <strong>{account.account_number}</strong> (
          <UserText>{`${account.customer.first_name} ${account.customer.last_name}`}</UserText>).{' '}
          {shown?.text}
        </p>
      </ConfirmDialog>
    </div>
  );
}
