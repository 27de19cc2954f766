import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { SessionCredential } from '../../platform/http/auth.js';
import { AppError } from '../../platform/http/errors.js';
import { findPartnerById } from '../accounts/accounts.repository.js';

export type OnboardingService = ReturnType<typeof createOnboardingService>;

export function createOnboardingService({ db }: { db: Kysely<Database> }) {
  async function getProfile(session: SessionCredential) {
    const partner = await findPartnerById(db, session.partnerId);
    if (!partner) throw new AppError('NOT_FOUND');
    return {
      company_id: partner.id,
      business_name: partner.business_name,
      legal_business_name: partner.legal_business_name,
      business_type: partner.business_type,
      rc_number: partner.rc_number,
      address: partner.address,
      website: partner.website,
      email: partner.email,
      phone: partner.phone,
      onboarding_status: partner.onboarding_status,
      environment: session.environment,
      representative: null,
      documents: [],
      document_checklist: {},
      review_notes: partner.review_notes,
      requirements: { currently_due: [], pending_review: [], errors: [] },
    };
  }

  return { getProfile };
}
