import { useId } from 'react';
import { Link } from 'react-aria-components';
import { Button } from '@/components/ui/button';
import type { VirtualAccount } from '@/lib/api/partner-types';
import { useAccess } from '@/lib/partner-roles';

/** Why no money can leave the account now, or null. */
function blockedBecause(account: VirtualAccount): string | null {
  if (account.status === 'closed') return 'A closed account sends no money.';
  if (account.status !== 'active') return 'Reactivate the account to send money from it.';
  if (account.available_balance_kobo <= 0) return 'No available balance to send yet.';
  return null;
}

/** "Send money" (the transfer flow's page), or the button disabled with the reason beside it. */
export function SendMoneyAction({ account }: { account: VirtualAccount }) {
  const reasonId = useId();
  const money = useAccess('money');
  const reason = money.reason ?? blockedBecause(account);
  return (
    <div className="account__send">
      {reason ? (
        <>
          <Button isDisabled aria-describedby={reasonId}>
            Send money
          </Button>
          <p id={reasonId} className="muted account__send-reason">
            {reason}
          </p>
        </>
      ) : (
        <Link className="button button--primary" href={`/accounts/${account.account_number}/send`}>
          Send money
        </Link>
      )}
      <Link
        className="account__transfers-link"
        href={`/transfers?source_account_number=${account.account_number}`}
      >
        Transfers from this account
      </Link>
    </div>
  );
}
