import { Button } from '@/components/ui/button';
import { UserText } from '@/components/ui/user-text';
import type { PartnerSession } from '@/lib/api/partner-types';
import { roleLabel } from '@/lib/partner-roles';
import { useSignOut } from '../api/session';

/**
 * Who is signed in (their name, their role and the business) and the way out. Signing out forgets
 * the session; the signed-in pages then send to sign-in, which says so.
 */
export function AccountMenu({ session }: { session: PartnerSession }) {
  const signOut = useSignOut();
  return (
    <div className="app-account__who-and-out">
      <span className="app-account__who">
        <span className="app-account__name">
          <UserText>{session.user.name}</UserText>
        </span>
        <span className="app-account__role">
          {roleLabel(session.user.role)} · <UserText>{session.business_name}</UserText>
        </span>
      </span>
      <Button variant="secondary" size="small" isPending={signOut.isPending} onPress={() => signOut.mutate()}>
        Sign out
      </Button>
    </div>
  );
}
