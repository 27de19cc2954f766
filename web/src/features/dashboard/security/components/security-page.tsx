import { ApiError } from '@baas/sdk';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { Form } from 'react-aria-components';
import { RoleNote } from '@/components/role-note';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { QueryView } from '@/components/ui/query-view';
import { RadioGroupField } from '@/components/ui/radio-group-field';
import { SectionHeader } from '@/components/ui/section-header';
import { errorMessage } from '@/lib/api/api-error';
import { useAccess } from '@/lib/partner-roles';
import {
  type SecondFactorPolicy,
  type SecuritySettings,
  securityQuery,
  useSaveSecurity,
} from '../api/security';
import './security.css';

const POLICY_OPTIONS: { id: SecondFactorPolicy; label: string }[] = [
  { id: 'live_money', label: 'Live money actions (default)' },
  { id: 'everyone', label: 'Everyone, for everything' },
];

const POLICY_SAVED: Record<SecondFactorPolicy, string> = {
  live_money: 'Saved: a second factor is required for live money actions.',
  everyone: 'Saved: every user needs a second factor for everything in this dashboard.',
};

/**
 * Settings → Security: what dashboard sessions need a second factor for (docs/partner-guide.md,
 * "Second factor"). Owners change it; everyone else reads it.
 */
export function SecurityPage() {
  const settings = useQuery(securityQuery);
  const canChange = useAccess('owner').allowed;
  return (
    <section className="security" aria-labelledby="security-heading">
      <title>Security · Partner dashboard</title>
      <SectionHeader
        id="security-heading"
        title="Security"
        description={
          <p>
            How people sign in to this dashboard. API keys are not people: they are never asked for a second
            factor.
          </p>
        }
      />
      <RoleNote access="owner" />
      <QueryView
        query={settings}
        loading="Loading security settings…"
        errorTitle="The settings could not be loaded."
      >
        {(data) => <SecondFactorPolicyForm settings={data} canChange={canChange} />}
      </QueryView>
    </section>
  );
}

function SecondFactorPolicyForm({ settings, canChange }: { settings: SecuritySettings; canChange: boolean }) {
  const save = useSaveSecurity();
  const headingId = useId();
  const [policy, setPolicy] = useState<SecondFactorPolicy>(settings.second_factor);
  const [notice, setNotice] = useState('');
  const error = save.error;
  const needsFactor = error instanceof ApiError && error.errorCode === 'SECOND_FACTOR_REQUIRED';
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setNotice('');
    save.mutate(policy, { onSuccess: (data) => setNotice(POLICY_SAVED[data.second_factor]) });
  };
  return (
    <Card labelledBy={headingId} className="security__card">
      <h3 id={headingId}>Second factor</h3>
      <p className="muted">
        Each user turns on their own second factor in Settings → Users (Your second factor). A session made
        without one is refused where one is required, until the user turns it on and signs in again.
      </p>
      <Form className="security__form" onSubmit={submit}>
        <RadioGroupField
          name="second_factor"
          label="Second factor required for"
          orientation="vertical"
          options={POLICY_OPTIONS}
          value={policy}
          onChange={(value) => {
            setNotice('');
            save.reset();
            setPolicy(value as SecondFactorPolicy);
          }}
          isDisabled={!canChange}
          description={
            policy === 'everyone'
              ? 'Every dashboard request needs a session made with a second factor; no one can turn theirs off. Choosing it needs your own session to be made with a second factor.'
              : 'Creating, changing or crediting accounts, name enquiries and transfers in live need a session made with a second factor.'
          }
        />
        {canChange ? (
          <div>
            <Button type="submit" isPending={save.isPending} isDisabled={policy === settings.second_factor}>
              {save.isPending ? 'Saving…' : 'Save'}
            </Button>
          </div>
        ) : null}
      </Form>
      <p role="status" className="security__notice">
        {notice}
      </p>
      {error ? (
        <Alert tone="error" title="The setting was not saved.">
          <p>
            {needsFactor
              ? 'Requiring a second factor of everyone needs your own session to be made with one, so that you cannot lock yourself out. Turn on your second factor in Settings → Users, sign in again with its code, then choose this.'
              : errorMessage(error)}
          </p>
        </Alert>
      ) : null}
    </Card>
  );
}
