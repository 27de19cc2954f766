import { Button } from '@/components/ui/button';
import { UserText } from '@/components/ui/user-text';
import type { OperatorIdentity } from '@/lib/api/operator-types';
import { useSignOut } from '../api/session';

const ROLE_LABELS = { admin: 'Admin', reviewer: 'Reviewer' } as const;

/** Who is signed in (name and role) and the way out, for the header (the page then goes to sign-in). */
export function AccountMenu({ operator }: { operator: OperatorIdentity }) {
  const signOut = useSignOut();
  return (
    <div className="app-account">
      <p className="app-account__who">
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
      </p>
      <Button variant="secondary" size="small" isPending={signOut.isPending} onPress={() => signOut.mutate()}>
        Sign out
      </Button>
    </div>
  );
}
