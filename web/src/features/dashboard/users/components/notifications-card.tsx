import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Checkbox } from 'react-aria-components';
import { Alert } from '@/components/ui/alert';
import { Card } from '@/components/ui/card';
import { QueryView } from '@/components/ui/query-view';
import { errorMessage } from '@/lib/api/api-error';
import { notificationsQuery, useSetNotification } from '../api/notifications';

/**
 * The signed-in user's own e-mail notifications: each kind a checkbox saved as it changes.
 * Suspension and reinstatement are always sent (checked and disabled, with the reason).
 */
export function NotificationsCard() {
  const preferences = useQuery(notificationsQuery);
  const save = useSetNotification();
  const [notice, setNotice] = useState('');
  const headingId = useId();
  return (
    <Card labelledBy={headingId} className="users__notifications">
      <h3 id={headingId}>Your e-mail notifications</h3>
      <p className="muted">
        Owners and admins are e-mailed when something about the business needs a person. Choose which of these
        e-mails you receive; your choice is yours only.
      </p>
      <QueryView
        query={preferences}
        loading="Loading your notifications…"
        errorTitle="Your notifications could not be loaded."
      >
        {(data) => (
          <ul className="users__notification-list">
            {data.map((item) => (
              <li key={item.kind}>
                <Checkbox
                  className="checkbox"
                  isSelected={item.enabled}
                  isDisabled={item.required || (save.isPending && save.variables?.kind === item.kind)}
                  onChange={(enabled) => {
                    setNotice('');
                    save.mutate(
                      { kind: item.kind, enabled },
                      {
                        onSuccess: () =>
                          setNotice(
                            `${item.description}: ${enabled ? 'you will be e-mailed' : 'no e-mail'}.`,
                          ),
                      },
                    );
                  }}
                >
                  <span className="checkbox__box" aria-hidden="true" />
                  <span>
                    {item.description}
                    {item.required ? (
                      <span className="muted"> (always sent: it concerns live access)</span>
                    ) : null}
                  </span>
                </Checkbox>
              </li>
            ))}
          </ul>
        )}
      </QueryView>
      <p role="status" className="users__notice">
        {notice}
      </p>
      {save.error ? (
        <Alert tone="error" title="Your choice was not saved.">
          <p>{errorMessage(save.error)}</p>
        </Alert>
      ) : null}
    </Card>
  );
}
