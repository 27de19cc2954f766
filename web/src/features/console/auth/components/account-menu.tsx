import { Link } from 'react-aria-components';
import { Button } from '@/components/ui/button';
import { UserText } from '@/components/ui/user-text';
import type { OperatorIdentity } from '@/lib/api/operator-types';
import { useSignOut } from '../api/session';

const ROLE_LABELS = { admin: 'Admin', reviewer: 'Reviewer' } as const;

/**
 * Who is signed in (name and role, a link to their account: password and sessions) and the way
 * out, for the header (the page then goes to sign-in).
 */
export function AccountMenu({ operator }: { operator: OperatorIdentity }) {
  const signOut = useSignOut();
  return (
    <div className="app-account">
      <Link className="app-account__who" href="/account">
        <span className="visually-hidden">Your account: </span>
        <span className="app-account__name">
          <UserText>{operator.name}</UserText>
        </span>
        <span className="app-account__role">
          {ROLE_LABELS[operator.role]}
          <span className="app-account__email">
            {' '}
            · <UserText>{operator.email}</UserText>
          </span>
        </span>
      </Link>
      <Button variant="secondary" size="small" isPending={signOut.isPending} onPress={() => signOut.mutate()}>
        Sign out
      </Button>
    </div>
  );
}
