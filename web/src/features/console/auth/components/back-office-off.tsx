import { useId } from 'react';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import './sign-in.css';

export interface BackOfficeOffProps {
  /** Reads the session again. */
  onCheckAgain: () => void;
  isChecking: boolean;
  /** When the last check answered (it said: still off). */
  checkedAt: number;
}

/**
 * The console of a server started without ADMIN_API_KEY: every /admin path answers 404, so there
 * is nothing to sign in to. Says so, how to turn it on, and checks again only when asked.
 */
export function BackOfficeOff({ onCheckAgain, isChecking, checkedAt }: BackOfficeOffProps) {
  const stepsId = useId();
  return (
    <div className="back-office-off">
      <title>The back office is off · Operator console</title>
      <h1>The back office is off</h1>
      <p className="back-office-off__lead">
        This server was started without <code>ADMIN_API_KEY</code>, so the operator console and the
        back-office API are turned off: there is nothing to sign in to yet.
      </p>
      <Card labelledBy={stepsId}>
        <h2 id={stepsId}>Turn it on</h2>
        <ol className="back-office-off__steps">
          <li>
            Restart the server with <code>ADMIN_API_KEY</code> set: any string of 32 or more characters (in
            production a long random one), in the environment or in <code>.env</code>.
            <pre className="back-office-off__command">
              <code>ADMIN_API_KEY=local-operator-key-0123456789abcdef npm start</code>
            </pre>
          </li>
          <li>
            Invite the first admin from the command line, in the server's folder with its settings:
            <pre className="back-office-off__command">
              <code>npm run operator -- invite --email you@example.com --role admin</code>
            </pre>
          </li>
          <li>
            Open the printed link once: choose a name and password, add the console to your authenticator app
            and keep the recovery codes. Then sign in here.
          </li>
        </ol>
        <div className="back-office-off__check">
          <Button onPress={onCheckAgain} isPending={isChecking}>
            {isChecking ? 'Checking…' : 'Check again'}
          </Button>
          <p className="muted" role="status">
            {isChecking ? '' : `Still off when checked at ${new Date(checkedAt).toLocaleTimeString()}.`}
          </p>
        </div>
      </Card>
    </div>
  );
}
