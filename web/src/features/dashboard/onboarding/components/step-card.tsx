import { type ReactNode, useId } from 'react';
import { Badge, type BadgeTone } from '@/components/ui/badge';
import { Card } from '@/components/ui/card';
import type { StepState } from '../steps';

const STATE_BADGES: Record<StepState, { tone: BadgeTone; label: string }> = {
  done: { tone: 'success', label: 'Done' },
  todo: { tone: 'neutral', label: 'To do' },
  attention: { tone: 'danger', label: 'Needs attention' },
  waiting: { tone: 'info', label: 'Waiting for review' },
};

export function StepBadge({
  state,
  labels,
}: {
  state: StepState;
  labels?: Partial<Record<StepState, string>>;
}) {
  const badge = STATE_BADGES[state];
  return <Badge tone={badge.tone}>{labels?.[state] ?? badge.label}</Badge>;
}

/** One numbered step of onboarding: its heading and state, what it is for, then its form. */
export function StepCard({
  id,
  number,
  title,
  state,
  stateLabels,
  description,
  children,
}: {
  id: string;
  number: number;
  title: string;
  state: StepState;
  stateLabels?: Partial<Record<StepState, string>>;
  description?: ReactNode;
  children: ReactNode;
}) {
  const headingId = useId();
  return (
    <div id={id} className="onboarding-step">
      <Card labelledBy={headingId}>
        <header className="onboarding-step__header">
          <span className="onboarding-step__number" aria-hidden="true">
            {number}
          </span>
          <h2 id={headingId} className="onboarding-step__title">
            <span className="visually-hidden">Step {number}: </span>
            {title}
          </h2>
          <StepBadge state={state} {...(stateLabels ? { labels: stateLabels } : {})} />
        </header>
        {description ? <p className="onboarding-step__description">{description}</p> : null}
        {children}
      </Card>
    </div>
  );
}
