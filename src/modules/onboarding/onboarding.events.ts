import { Type } from '@sinclair/typebox';
import { defineEvents } from '../../platform/events/catalog.js';
import { Nullable, StringEnum } from '../../platform/http/schemas.js';
import { ONBOARDING_STATUSES } from '../partners/partners.schemas.js';
import { DOCUMENT_STATUSES, DOCUMENT_TYPES } from './onboarding.schemas.js';

/** The webhook events of onboarding: the `data` each carries, and what it means. */
export const ONBOARDING_EVENTS = defineEvents({
  'onboarding.status_changed': {
    payload: Type.Object(
      {
        company_id: Type.Integer(),
        onboarding_status: StringEnum(ONBOARDING_STATUSES),
        review_notes: Nullable(Type.String()),
      },
      { title: 'OnboardingStatusChange' },
    ),
    description:
      "The partner's onboarding_status changed: submitted, approved, changes requested, rejected, suspended or reinstated. Sent to both environments.",
  },
  'document.reviewed': {
    payload: Type.Object(
      {
        id: Type.String({ format: 'uuid' }),
        document_type: StringEnum(DOCUMENT_TYPES),
        status: StringEnum(DOCUMENT_STATUSES),
        rejection_reason: Nullable(Type.String()),
      },
      { title: 'DocumentReview' },
    ),
    description: 'The operator approved or rejected a document. Sent to both environments.',
  },
});

export type OnboardingEventType = keyof typeof ONBOARDING_EVENTS;
