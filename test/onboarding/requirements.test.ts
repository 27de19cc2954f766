import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DOCUMENT_TYPES } from '../../src/modules/onboarding/onboarding.schemas.js';
import {
  approvalGaps,
  checklistOf,
  type OnboardingState,
  requirementsOf,
  submissionGaps,
} from '../../src/modules/onboarding/requirements.js';
import { BUSINESS_TYPES } from '../../src/modules/partners/partners.schemas.js';
import {
  GUIDE_BUSINESS_TYPES,
  GUIDE_CHECKLISTS,
  GUIDE_DOCUMENT_TYPES,
  type GuideBusinessType,
} from '../support/onboarding.js';

type DocumentStatus = 'pending_review' | 'approved' | 'rejected';

const PASSED = { kycStatus: 'passed', kycMessage: 'BVN verified.' };
const FAILED = { kycStatus: 'failed', kycMessage: 'BVN not found: check the number and try again.' };

function state(overrides: Partial<OnboardingState> = {}): OnboardingState {
  return {
    onboardingStatus: 'in_progress',
    businessType: null,
    reviewNotes: null,
    representative: null,
    documents: [],
    ...overrides,
  };
}

/** Every checklist document of the type, in one status. */
function documentsOf(type: GuideBusinessType, status: DocumentStatus, rejectionReason: string | null = null) {
  return GUIDE_CHECKLISTS[type].map((documentType) => ({ documentType, status, rejectionReason }));
}

const sorted = (values: Iterable<string>) => [...values].sort();

describe('onboarding requirements (pure logic)', () => {
  it('knows exactly the business types and document types the partner guide lists', () => {
    assert.deepEqual(sorted(BUSINESS_TYPES), sorted(GUIDE_BUSINESS_TYPES));
    assert.deepEqual(sorted(DOCUMENT_TYPES), sorted(GUIDE_DOCUMENT_TYPES));
  });

  describe('checklistOf', () => {
    it('is empty while business_type is not set, whatever was uploaded', () => {
      assert.deepEqual(
        checklistOf(
          state({ documents: [{ documentType: 'memart', status: 'approved', rejectionReason: null }] }),
        ),
        {},
      );
    });

    for (const type of GUIDE_BUSINESS_TYPES) {
      it(`lists exactly the ${type} documents, all missing before any upload`, () => {
        const checklist = checklistOf(state({ businessType: type }));
        assert.deepEqual(sorted(Object.keys(checklist)), sorted(GUIDE_CHECKLISTS[type]));
        assert.ok(Object.values(checklist).every((entry) => entry === 'missing'));
      });

      it(`marks ${type} documents uploaded when pending review or approved and missing when rejected`, () => {
        for (const [status, expected] of [
          ['pending_review', 'uploaded'],
          ['approved', 'uploaded'],
          ['rejected', 'missing'],
        ] as const) {
          const checklist = checklistOf(state({ businessType: type, documents: documentsOf(type, status) }));
          assert.deepEqual(
            checklist,
            Object.fromEntries(GUIDE_CHECKLISTS[type].map((documentType) => [documentType, expected])),
            `${type} with every document ${status}`,
          );
        }
      });
    }

    it('ignores uploaded types that are not on the business type checklist', () => {
      const checklist = checklistOf(
        state({
          businessType: 'limited_liability',
          documents: [
            { documentType: 'tin_certificate', status: 'pending_review', rejectionReason: null },
            { documentType: 'other', status: 'approved', rejectionReason: null },
            { documentType: 'scuml_certificate', status: 'approved', rejectionReason: null },
          ],
        }),
      );
      assert.deepEqual(checklist, { cac_certificate: 'missing', memart: 'missing', valid_id: 'missing' });
    });
  });

  describe('submissionGaps', () => {
    it('names business_type and representative for a fresh application', () => {
      assert.deepEqual(submissionGaps(state()), { business_type: ['missing'], representative: ['missing'] });
    });

    it('names representative.kyc when the representative has not passed KYC', () => {
      for (const kycStatus of ['failed', 'error']) {
        const gaps = submissionGaps(
          state({
            businessType: 'limited_liability',
            representative: { kycStatus, kycMessage: 'no' },
            documents: documentsOf('limited_liability', 'pending_review'),
          }),
        );
        assert.deepEqual(gaps, { 'representative.kyc': ['not passed'] }, kycStatus);
      }
    });

    for (const type of GUIDE_BUSINESS_TYPES) {
      it(`names each missing ${type} document as documents.<type>`, () => {
        const gaps = submissionGaps(state({ businessType: type, representative: PASSED }));
        assert.deepEqual(
          gaps,
          Object.fromEntries(
            GUIDE_CHECKLISTS[type].map((documentType) => [`documents.${documentType}`, ['missing']]),
          ),
        );
      });

      it(`has no gap for a complete ${type} application, pending review or approved`, () => {
        for (const status of ['pending_review', 'approved'] as const) {
          assert.deepEqual(
            submissionGaps(
              state({ businessType: type, representative: PASSED, documents: documentsOf(type, status) }),
            ),
            {},
          );
        }
      });
    }

    it('names a rejected checklist document as missing', () => {
      const documents = documentsOf('limited_liability', 'approved').map((document) =>
        document.documentType === 'memart'
          ? { ...document, status: 'rejected', rejectionReason: 'illegible' }
          : document,
      );
      assert.deepEqual(
        submissionGaps(state({ businessType: 'limited_liability', representative: PASSED, documents })),
        { 'documents.memart': ['missing'] },
      );
    });
  });

  describe('approvalGaps', () => {
    for (const type of GUIDE_BUSINESS_TYPES) {
      it(`names every ${type} document still pending review as not approved`, () => {
        const gaps = approvalGaps(
          state({
            onboardingStatus: 'under_review',
            businessType: type,
            representative: PASSED,
            documents: documentsOf(type, 'pending_review'),
          }),
        );
        assert.deepEqual(
          gaps,
          Object.fromEntries(
            GUIDE_CHECKLISTS[type].map((documentType) => [`documents.${documentType}`, ['not approved']]),
          ),
        );
      });

      it(`has no gap when every ${type} document is approved and KYC passed`, () => {
        assert.deepEqual(
          approvalGaps(
            state({
              onboardingStatus: 'under_review',
              businessType: type,
              representative: PASSED,
              documents: documentsOf(type, 'approved'),
            }),
          ),
          {},
        );
      });
    }

    it('keeps the submission gaps: KYC not passed, rejected documents, no business type', () => {
      const documents = documentsOf('limited_liability', 'approved').map((document) =>
        document.documentType === 'cac_certificate' ? { ...document, status: 'rejected' } : document,
      );
      assert.deepEqual(
        approvalGaps(state({ businessType: 'limited_liability', representative: FAILED, documents })),
        { 'representative.kyc': ['not passed'], 'documents.cac_certificate': ['missing'] },
      );
      assert.deepEqual(approvalGaps(state({ representative: PASSED })), { business_type: ['missing'] });
    });

    it('does not require approval of documents outside the checklist', () => {
      const documents = [
        ...documentsOf('limited_liability', 'approved'),
        { documentType: 'tin_certificate', status: 'pending_review', rejectionReason: null },
      ];
      assert.deepEqual(
        approvalGaps(state({ businessType: 'limited_liability', representative: PASSED, documents })),
        {},
      );
    });
  });

  describe('requirementsOf', () => {
    it('lists what a fresh application must still do', () => {
      assert.deepEqual(requirementsOf(state()), {
        currently_due: ['business_type', 'representative'],
        pending_review: [],
        errors: [],
      });
    });

    for (const type of GUIDE_BUSINESS_TYPES) {
      it(`lists each missing ${type} document as currently due, and only submit once complete`, () => {
        const incomplete = requirementsOf(state({ businessType: type, representative: PASSED }));
        assert.deepEqual(
          sorted(incomplete.currently_due),
          sorted(GUIDE_CHECKLISTS[type].map((documentType) => `documents.${documentType}`)),
        );
        const complete = requirementsOf(
          state({
            businessType: type,
            representative: PASSED,
            documents: documentsOf(type, 'pending_review'),
          }),
        );
        assert.deepEqual(complete.currently_due, ['submit']);
        assert.deepEqual(
          sorted(complete.pending_review),
          sorted(GUIDE_CHECKLISTS[type].map((documentType) => `documents.${documentType}`)),
        );
        assert.deepEqual(complete.errors, []);
      });
    }

    it('explains a failed KYC check under representative.kyc with the provider message', () => {
      const requirements = requirementsOf(state({ businessType: 'partnership', representative: FAILED }));
      assert.ok(requirements.currently_due.includes('representative.kyc'));
      assert.deepEqual(requirements.errors, [
        { requirement: 'representative.kyc', reason: FAILED.kycMessage },
      ]);
    });

    it('explains a rejected document with its reason, or a default reason when none was kept', () => {
      const requirements = requirementsOf(
        state({
          businessType: 'limited_liability',
          representative: PASSED,
          documents: [
            { documentType: 'cac_certificate', status: 'approved', rejectionReason: null },
            { documentType: 'memart', status: 'rejected', rejectionReason: 'The scan is illegible.' },
            { documentType: 'valid_id', status: 'rejected', rejectionReason: null },
          ],
        }),
      );
      assert.deepEqual(sorted(requirements.currently_due), ['documents.memart', 'documents.valid_id']);
      assert.deepEqual(requirements.errors[0], {
        requirement: 'documents.memart',
        reason: 'The scan is illegible.',
      });
      assert.equal(requirements.errors[1]?.requirement, 'documents.valid_id');
      assert.ok((requirements.errors[1]?.reason ?? '').length > 0);
    });

    it('shows the application awaiting the operator while under_review, with nothing due', () => {
      const requirements = requirementsOf(
        state({
          onboardingStatus: 'under_review',
          businessType: 'limited_liability',
          representative: PASSED,
          documents: documentsOf('limited_liability', 'pending_review'),
        }),
      );
      assert.deepEqual(requirements.currently_due, []);
      assert.ok(requirements.pending_review.includes('application'));
      assert.ok(requirements.pending_review.includes('documents.memart'));
      assert.deepEqual(requirements.errors, []);
    });

    it('shows the review notes as an application error when changes were requested', () => {
      const requirements = requirementsOf(
        state({
          onboardingStatus: 'in_progress',
          businessType: 'limited_liability',
          representative: PASSED,
          reviewNotes: 'Upload a clearer MEMART.',
          documents: documentsOf('limited_liability', 'approved'),
        }),
      );
      assert.deepEqual(requirements.currently_due, ['submit']);
      assert.deepEqual(requirements.errors, [
        { requirement: 'application', reason: 'Upload a clearer MEMART.' },
      ]);
    });

    it('shows why a rejected application was rejected and asks for nothing', () => {
      const requirements = requirementsOf(
        state({
          onboardingStatus: 'rejected',
          businessType: 'limited_liability',
          representative: PASSED,
          reviewNotes: 'Out of scope.',
          documents: documentsOf('limited_liability', 'approved'),
        }),
      );
      assert.deepEqual(requirements, {
        currently_due: [],
        pending_review: [],
        errors: [{ requirement: 'application', reason: 'Out of scope.' }],
      });
    });

    it('has nothing due, pending or wrong for an active partner', () => {
      assert.deepEqual(
        requirementsOf(
          state({
            onboardingStatus: 'active',
            businessType: 'public_limited',
            representative: PASSED,
            documents: documentsOf('public_limited', 'approved'),
          }),
        ),
        { currently_due: [], pending_review: [], errors: [] },
      );
    });
  });
});
