import { type Access, useAccess } from '@/lib/partner-roles';
import { Alert } from './ui/alert';

/**
 * Why the signed-in user's role cannot do what a page or section offers (its actions are hidden or
 * disabled), or nothing when it can. The server refuses such requests anyway (403 FORBIDDEN).
 */
export function RoleNote({ access, className }: { access: Access; className?: string }) {
  const { allowed, reason } = useAccess(access);
  if (allowed) return null;
  return (
    <Alert tone="info" {...(className ? { className } : {})}>
      <p>{reason}</p>
    </Alert>
  );
}
