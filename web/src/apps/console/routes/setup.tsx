import { useLocation, useNavigate } from 'react-router';
import { SetupPage } from '@/features/console/setup/components/setup-page';

/** The token travels in the link's fragment (#token=…), which browsers never send to a server. */
const tokenFrom = (hash: string) => new URLSearchParams(hash.replace(/^#/, '')).get('token');

export function SetupRoute() {
  const { hash } = useLocation();
  const navigate = useNavigate();
  return <SetupPage token={tokenFrom(hash)} onFinished={() => navigate('/review', { replace: true })} />;
}
