import { useId } from 'react';
import { Card } from '@/components/ui/card';
import type { StepStates } from '../steps';
import { StepBadge } from './step-card';

const STEPS: Array<{ key: keyof StepStates; title: string; anchor: string }> = [
  { key: 'profile', title: 'Business profile', anchor: 'business-profile' },
  { key: 'representative', title: 'Compliance representative', anchor: 'representative' },
  { key: 'documents', title: 'Documents', anchor: 'documents' },
  { key: 'submit', title: 'Submit for review', anchor: 'submit' },
];

/** The four steps at a glance, each a jump to its section. */
export function OnboardingProgress({ states }: { states: StepStates }) {
  const headingId = useId();
  // A step waiting for the operator is done on the partner's side: under review, all four are.
  const done = STEPS.filter((step) => states[step.key] === 'done' || states[step.key] === 'waiting').length;
  const waiting = STEPS.some((step) => states[step.key] === 'waiting');
  return (
    <Card labelledBy={headingId} className="onboarding-progress">
      <h2 id={headingId}>Your progress</h2>
      <p className="onboarding-progress__count">
        {done} of {STEPS.length} steps done
        {waiting && done === STEPS.length ? ': waiting for our review' : ''}
      </p>
      <ol className="onboarding-progress__steps">
        {STEPS.map((step) => (
          <li key={step.key} data-state={states[step.key]}>
            <a href={`#${step.anchor}`}>{step.title}</a>
            <StepBadge state={states[step.key]} />
          </li>
        ))}
      </ol>
    </Card>
  );
}
