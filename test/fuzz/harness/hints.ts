import fc from 'fast-check';
import { WEBHOOK } from '../../support/paths.js';
import { adultDobArb, emailArb, invalidFileArb, type Mutation, validFileArb } from './arbitraries.js';
import type { Expectation, PropertyName } from './plan.js';
import { FilePart, PoolValue, RawJson } from './values.js';
import type { FuzzWorld, PoolName } from './world.js';

/**
 * What the generic schema-driven generator cannot know about an operation: business rules that
 * make a schema-valid body really valid (so 2xx paths get exercised), which pools hold real ids for
 * its parameters, and business-rule violations that must be rejected with 422 naming the field.
 * Everything else about an operation comes from the OpenAPI document.
 */
export interface OperationHints {
  /** Valid-value overrides per body field. */
  fields?: Record<string, fc.Arbitrary<unknown>>;
  /** Whole valid bodies mixed in with the generated ones (e.g. a real OTP for a real address). */
  bodies?: fc.Arbitrary<Record<string, unknown>>;
  /** A deterministic fix-up of a generated valid body (e.g. password_confirmation = password). */
  refine?: (body: Record<string, unknown>, choice: number) => Record<string, unknown>;
  /** Business-rule violations: the body (after the mutation) must get 422 naming the field. */
  invalid?: Array<fc.Arbitrary<BusinessMutation>>;
  /** Pools of real ids per path or query parameter (mixed with generated values). */
  params?: Record<string, PoolName[]>;
  /** Path parameters that mostly take the owner of another's value (company_id of a document_id). */
  pairs?: Record<string, string>;
  query?: Record<string, PoolName[]>;
  /** The session credential is a fresh session (logout revokes it). */
  freshSession?: boolean;
  /** Unknown fields not to add to valid bodies (their sentinel may legitimately appear). */
  avoidExtras?: string[];
  /** Runs before each property of the operation (restores a precondition). */
  prepare?: (world: FuzzWorld, property: PropertyName) => Promise<void>;
  /** Runs before each case of the valid property (a precondition the operation itself consumes). */
  beforeValidCase?: (world: FuzzWorld) => Promise<void>;
  /** Expectation for a valid request (default: any non-5xx). */
  expect?: (body: Record<string, unknown> | undefined, world: FuzzWorld) => Expectation | undefined;
}

/**
 * Exactly one of the file and its URL (a blank URL counts as absent): docs/partner-guide.md,
 * "Onboarding: profile, representative, documents".
 */
const exactlyOne =
  (file: string, url: string) =>
  (body: Record<string, unknown>, choice: number): Record<string, unknown> => {
    const copy = { ...body };
    const hasFile = copy[file] !== undefined;
    const hasUrl = typeof copy[url] === 'string' && copy[url].trim() !== '';
    if (hasFile && hasUrl) {
      if (choice % 2 === 0) delete copy[file];
      else delete copy[url];
    } else if (!hasFile && !hasUrl) {
      if (choice % 2 === 0) copy[url] = `https://files.fuzz.ng/${choice}.pdf`;
      else copy[file] = new FilePart('pdf', `${choice}.pdf`, 'application/pdf');
    }
    return copy;
  };

/** A business-rule mutation; `statuses` overrides the expected 422. */
export type BusinessMutation = Mutation & { statuses?: number[] };

const rule = (field: string, set: Record<string, unknown>, remove: string[] = []): BusinessMutation => ({
  kind: 'business-rule',
  field,
  patch: { set, remove },
});

/**
 * Exactly one of the file and its URL; the file a PDF, JPEG or PNG by content: docs/partner-guide.md,
 * "Onboarding: profile, representative, documents".
 */
const bothOrNeither = (file: string, url: string): Array<fc.Arbitrary<BusinessMutation>> => [
  validFileArb().map((part) => rule(file, { [file]: part, [url]: 'https://files.fuzz.ng/x.pdf' })),
  fc.constant(rule(file, {}, [file, url])),
  invalidFileArb().map((part) => ({
    ...rule(file, { [file]: part }, [url]),
    kind: 'bad-file' as const,
    ...(part.content === 'oversized' ? { statuses: [413] } : {}),
  })),
];

const takenEmail = (emails: string[]): fc.Arbitrary<BusinessMutation> =>
  fc.tuple(fc.constantFrom(...emails), fc.constantFrom('upper', 'padded', 'same')).map(([email, variant]) =>
    rule('email', {
      email: variant === 'upper' ? email.toUpperCase() : variant === 'padded' ? `  ${email}\t` : email,
    }),
  );

const tooYoungOrOld = (field: string): fc.Arbitrary<BusinessMutation> => {
  const year = new Date().getUTCFullYear();
  return fc
    .constantFrom(`${year + 1}-01-01`, `${year - 10}-06-15`, `${year - 125}-06-15`, '2999-12-31')
    .map((value) => rule(field, { [field]: value }));
};

const naira = fc.oneof(
  fc.integer({ min: 1, max: 1_000_000_000 }).map((kobo) => kobo / 100),
  fc.integer({ min: 1, max: 10_000_000 }),
  fc
    .tuple(
      fc.integer({ min: 0, max: 9_999_999 }),
      fc.constantFrom('', '.5', '.05', '.50', '.99', '.1'),
      fc.constantFrom('', ' ', '  '),
    )
    .map(([whole, fraction, padding]) => `${padding}${whole}${fraction}${padding}`)
    .filter((text) => Number(text) > 0),
  fc.constantFrom(0.01, 10_000_000, '10000000.00', '0.01', new RawJson('1.10'), new RawJson('100.0')),
);

const badAmounts = fc.constantFrom<unknown>(
  0,
  -1,
  0.001,
  1.005,
  10_000_000.01,
  '10000000.01',
  1e21,
  '1e5',
  '0x10',
  'abc',
  'NaN',
  'Infinity',
  '-Infinity',
  '12.3.4',
  '-5',
  '+5',
  '1,000',
  '٣',
  '0.000',
  new RawJson('1e400'),
  new RawJson('-0'),
  new RawJson('1e-7'),
  "' OR 1=1 --",
);

/** The operator's actions consume their target's state: valid cases get a partner fresh under review. */
const freshTarget =
  (approveDocuments: boolean) =>
  async (world: FuzzWorld, property: PropertyName): Promise<void> => {
    if (property === 'valid') await world.freshReviewTarget({ approveDocuments });
  };

const COMMON_PASSWORDS = ['password', 'password123', '12345678', 'qwertyuiop', 'iloveyou'];

/** Hints by operationId; an operationId missing from the document is reported as stale. */
export function operationHints(world: FuzzWorld): Record<string, OperationHints> {
  const knownEmails = [world.unverifiedEmail, world.main.email, world.loginPartner.email];
  const emailOrKnown = fc.oneof(
    emailArb(),
    fc.constantFrom(...knownEmails),
    fc.constantFrom(...knownEmails).map((email) => ` ${email.toUpperCase()} `),
  );
  const password = fc
    .string({ unit: 'grapheme', minLength: 12, maxLength: 40 })
    .filter((value) => value.trim().length >= 8);
  const ensureWebhook = async (world: FuzzWorld) => {
    const response = await world.t.api.put(
      WEBHOOK,
      { url: world.receiverUrl },
      { token: world.credentials.sessionToken },
    );
    if (response.status >= 300)
      throw new Error(`fuzz prepare: set webhook → ${response.status} ${response.text}`);
  };
  return {
    registerPartner: {
      fields: { password, password_confirmation: password },
      refine: (body, choice) =>
        choice % 8 === 0 ? body : { ...body, password_confirmation: body['password'] },
      invalid: [
        // A taken e-mail (case-insensitive) is 422 naming email (docs/partner-guide.md, "Your account").
        takenEmail([world.main.email, world.unverifiedEmail]),
        fc.constant(rule('password_confirmation', { password_confirmation: 'Different-Password-42' })),
        fc
          .constantFrom(...COMMON_PASSWORDS)
          .map((value) => rule('password', { password: value, password_confirmation: value })),
      ],
    },
    verifyPartnerOtp: {
      fields: { email: emailOrKnown },
      // The code really e-mailed to an unverified address (the setup's or one registered by the fuzzer).
      bodies: fc.nat().map((index) => ({
        email: new PoolValue('unverifiedEmail', index),
        otp: new PoolValue('unverifiedEmail', index, 'otp'),
      })),
      avoidExtras: ['verified'],
    },
    resendPartnerOtp: { fields: { email: emailOrKnown } },
    loginPartner: {
      fields: {
        email: fc.oneof(
          emailArb(),
          fc.constant(world.loginPartner.email),
          fc.constant(` ${world.loginPartner.email.toUpperCase()}`),
        ),
        password: fc.oneof(
          fc.string({ minLength: 1, maxLength: 40 }).filter((value) => value.trim() !== ''),
          fc.constant(world.loginPartner.password),
        ),
      },
      expect: (body, world) =>
        typeof body?.['email'] === 'string' &&
        body['email'].trim().toLowerCase() === world.loginPartner.email &&
        body['password'] === world.loginPartner.password
          ? {
              kind: 'one-of',
              statuses: [200, 429],
              why: 'the right e-mail (any case, padded) and password log in',
            }
          : {
              kind: 'one-of',
              statuses: [401, 429],
              why: 'a wrong e-mail or password is INVALID_CREDENTIALS',
            },
    },
    logoutPartner: { freshSession: true },
    saveComplianceRepresentative: {
      fields: {
        dob: adultDobArb(),
        bvn: fc.oneof(
          { weight: 4, arbitrary: fc.constant(world.mainBvn) },
          { weight: 1, arbitrary: fc.stringMatching(/^22[0-9]{9}$/) },
          { weight: 1, arbitrary: fc.stringMatching(/^[0-9]{11}$/) },
        ),
      },
      refine: exactlyOne('id_file', 'id_file_url'),
      invalid: [
        ...bothOrNeither('id_file', 'id_file_url'),
        tooYoungOrOld('dob'),
        // Once KYC passed, another BVN is 409 BVN_IMMUTABLE (or ONBOARDING_LOCKED after submit):
        // docs/partner-guide.md, "Onboarding: profile, representative, documents".
        fc.constant({ ...rule('bvn', { bvn: '22999999999' }), statuses: [409] }),
      ],
    },
    uploadOnboardingDocument: {
      refine: exactlyOne('file', 'file_url'),
      invalid: bothOrNeither('file', 'file_url'),
    },
    createApiKey: {
      fields: { environment: fc.constantFrom('sandbox', 'sandbox', 'sandbox', 'live') },
    },
    revokeApiKey: { params: { id: ['apiKey'] } },
    createTeamMember: {
      fields: { dob: adultDobArb() },
      // E-mail unique within the team (422): docs/partner-guide.md, "API keys and team members".
      invalid: [tooYoungOrOld('dob'), takenEmail([world.mainEmails.member])],
    },
    getTeamMember: { params: { memberId: ['teamMember'] } },
    updateTeamMember: {
      params: { memberId: ['teamMember'] },
      fields: { dob: adultDobArb(), bvn: fc.constantFrom('22234567890', '22234567890', '22234567891') },
      // Another BVN is 409 BVN_IMMUTABLE (404 when the member is unknown): docs/partner-guide.md,
      // "API keys and team members".
      invalid: [fc.constant({ ...rule('bvn', { bvn: '22999999999' }), statuses: [404, 409] })],
    },
    deleteTeamMember: { params: { memberId: ['teamMember'] } },
    createVirtualAccount: {
      // One account per end-user e-mail (any case) per environment: 409 with the existing account
      // (docs/partner-guide.md, "Virtual accounts").
      invalid: [
        fc
          .constantFrom(
            world.mainEmails.customer,
            world.mainEmails.customer.toUpperCase(),
            ` ${world.mainEmails.customer} `,
          )
          .map((email) => ({ ...rule('email', { email }), statuses: [409] })),
      ],
    },
    getVirtualAccount: { params: { account_number: ['accountNumber'] } },
    simulateVirtualAccountCredit: {
      params: { account_number: ['accountNumber'] },
      fields: { amount: naira },
      invalid: [badAmounts.map((value) => rule('amount', { amount: value }))],
    },
    listVirtualAccountTransactions: { params: { account_number: ['accountNumber'] } },
    setWebhookEndpoint: {
      fields: {
        url: fc.oneof(
          { weight: 4, arbitrary: fc.nat().map((n) => `${world.receiverUrl}?n=${n}`) },
          { weight: 1, arbitrary: fc.constant(world.receiverUrl.replace('127.0.0.1', 'localhost')) },
          {
            weight: 1,
            arbitrary: fc.stringMatching(/^[a-z]{3,10}$/).map((name) => `https://${name}.invalid/hook`),
          },
        ),
      },
    },
    // Deleting consumes the endpoint: set it again before each valid case.
    deleteWebhookEndpoint: { beforeValidCase: ensureWebhook },
    rotateWebhookSecret: { prepare: ensureWebhook },
    listWebhookDeliveries: { query: { event_id: ['eventId'] } },
    retryWebhookDelivery: { params: { id: ['delivery'] }, prepare: ensureWebhook },
    getPartnerRecord: { params: { company_id: ['company'] } },
    approveDocument: {
      prepare: freshTarget(false),
      pairs: { company_id: 'document_id' },
      params: {
        company_id: ['adminTargetCompany', 'company'],
        document_id: ['adminTargetDocument', 'document'],
      },
    },
    rejectDocument: {
      pairs: { company_id: 'document_id' },
      params: {
        company_id: ['adminTargetCompany', 'company'],
        document_id: ['adminTargetDocument', 'document'],
      },
    },
    approvePartner: { params: { company_id: ['adminTargetCompany'] }, prepare: freshTarget(true) },
    requestPartnerChanges: { params: { company_id: ['adminTargetCompany'] }, prepare: freshTarget(false) },
    rejectPartner: { params: { company_id: ['adminTargetCompany'] }, prepare: freshTarget(false) },
    downloadDocumentFile: {
      pairs: { company_id: 'document_id' },
      params: { company_id: ['company'], document_id: ['document'] },
    },
    downloadOnboardingDocumentFile: { params: { document_id: ['document'] } },
    listAuditEvents: { query: { company_id: ['company'] } },
  };
}
