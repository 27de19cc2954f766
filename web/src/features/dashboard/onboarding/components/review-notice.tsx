import { Alert } from '@/components/ui/alert';
import { UserText } from '@/components/ui/user-text';
import type { OnboardingProfile } from '@/lib/api/partner-types';
import { requirementLabel } from '@/lib/onboarding-labels';

/**
 * What the operator said: the review notes of a request for changes (or a rejection) and every
 * reason something was refused, from `requirements.errors`.
 */
export function ReviewNotice({ profile }: { profile: OnboardingProfile }) {
  const status = profile.onboarding_status;
  const reasons = profile.requirements.errors.filter((error) => error.requirement !== 'application');
  const notes = profile.review_notes;
  if (!notes && reasons.length === 0) return null;

  const title =
    status === 'rejected'
      ? 'Your application was rejected.'
      : status === 'suspended'
        ? 'Your live access is suspended.'
        : notes
          ? 'Our compliance team asked for changes.'
          : 'Some items need your attention.';
  return (
    <Alert tone={status === 'rejected' ? 'error' : 'warning'} title={title} className="review-notice">
      {notes ? (
        <figure className="review-notice__notes">
          <figcaption>Review notes</figcaption>
          <blockquote>
            <UserText>{notes}</UserText>
          </blockquote>
        </figure>
      ) : null}
      {reasons.length > 0 ? (
        <ul className="alert__list">
          {reasons.map((reason) => (
            <li key={`${reason.requirement}:${reason.reason}`}>
              <strong>{requirementLabel(reason.requirement)}</strong>: <UserText>{reason.reason}</UserText>
            </li>
          ))}
        </ul>
      ) : null}
      {status === 'in_progress' ? (
        <p>{notes ? 'Make the changes below, then submit your application again.' : 'Correct them below.'}</p>
      ) : null}
    </Alert>
  );
}
