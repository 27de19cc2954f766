import { SecondFactorRequiredError } from '../core/error.js';
import { APIResource, type CallOptions, init, PREFIX, unwrap } from '../core/resource.js';
import { fileName, formOf, multipart } from '../internal/multipart.js';
import type {
  DocumentType,
  EnvironmentSetting,
  LoginInput,
  OnboardingProfile,
  RegisteredPartner,
  RegisterInput,
  RepresentativeInput,
  RepresentativeResult,
  ResetPasswordInput,
  SecondFactorLoginInput,
  Session,
  UpdateProfileInput,
  UploadedDocument,
  VerifiedPartner,
  VerifyOtpInput,
} from '../types.js';

/** Sign-up, sign-in and the onboarding application (session tokens only). */
export class Onboarding extends APIResource {
  /** Creates the partner account and e-mails a 6-digit code (201). */
  register(body: RegisterInput, options?: CallOptions): Promise<RegisteredPartner> {
    return unwrap(this.api.POST(`${PREFIX}/client/onboarding/register`, { body, ...init(options) }));
  }

  verifyOtp(body: VerifyOtpInput, options?: CallOptions): Promise<VerifiedPartner> {
    return unwrap(this.api.POST(`${PREFIX}/client/onboarding/verify-otp`, { body, ...init(options) }));
  }

  async resendOtp(email: string, options?: CallOptions): Promise<void> {
    await unwrap(
      this.api.POST(`${PREFIX}/client/onboarding/resend-otp`, { body: { email }, ...init(options) }),
    );
  }

  /**
   * Signs in with a bearer session (the SDK's way; `session: 'cookie'` is for browser pages); this
   * client then sends the new session token (`client.token`).
   */
  async login(body: LoginInput, options?: CallOptions): Promise<Session> {
    const answer = await unwrap(
      this.api.POST(`${PREFIX}/client/onboarding/login`, { body, ...init(options) }),
    );
    // A user with a second factor: the code comes next (loginSecondFactor).
    if ('second_factor_required' in answer)
      throw new SecondFactorRequiredError(answer.challenge_token, answer.expires_in);
    if (answer.token !== null) this.client.token = answer.token;
    return answer;
  }

  /** The second step of a login that threw SecondFactorRequiredError: its challenge token and a code. */
  async loginSecondFactor(body: SecondFactorLoginInput, options?: CallOptions): Promise<Session> {
    const session = await unwrap(
      this.api.POST(`${PREFIX}/client/onboarding/login/second-factor`, { body, ...init(options) }),
    );
    if (session.token !== null) this.client.token = session.token;
    return session;
  }

  /** Revokes the session token this client sends, and forgets it. */
  async logout(options?: CallOptions): Promise<void> {
    await unwrap(this.api.POST(`${PREFIX}/client/onboarding/logout`, init(options)));
    this.client.token = undefined;
  }

  async forgotPassword(email: string, options?: CallOptions): Promise<void> {
    await unwrap(
      this.api.POST(`${PREFIX}/client/onboarding/password/forgot`, { body: { email }, ...init(options) }),
    );
  }

  async resetPassword(body: ResetPasswordInput, options?: CallOptions): Promise<void> {
    await unwrap(this.api.POST(`${PREFIX}/client/onboarding/password/reset`, { body, ...init(options) }));
  }

  /** The business profile, onboarding status, checklist and `requirements`. */
  profile(options?: CallOptions): Promise<OnboardingProfile> {
    return unwrap(this.api.GET(`${PREFIX}/client/onboarding/business-info`, init(options)));
  }

  updateProfile(body: UpdateProfileInput, options?: CallOptions): Promise<OnboardingProfile> {
    return unwrap(this.api.PUT(`${PREFIX}/client/onboarding/business-info`, { body, ...init(options) }));
  }

  /**
   * Saves the compliance representative and runs KYC (the result is in `kyc`). The ID document is
   * `idFile` (PDF, JPEG or PNG, ≤ 5 MiB) or, without it, `fields.id_file_url`.
   */
  saveRepresentative(
    fields: RepresentativeInput,
    idFile?: Blob,
    options?: CallOptions,
  ): Promise<RepresentativeResult> {
    const form = formOf(fields);
    if (idFile) form.append('id_file', idFile, fileName(idFile, 'id'));
    return unwrap(
      this.api.POST(`${PREFIX}/client/onboarding/representative`, {
        ...multipart(fields, form),
        ...init(options),
      }),
    );
  }

  /** Uploads a document of `documentType`: a file (Blob/File) or the https URL of a hosted one. */
  uploadDocument(
    documentType: DocumentType,
    source: Blob | string,
    options?: CallOptions,
  ): Promise<UploadedDocument> {
    const fields =
      typeof source === 'string'
        ? { document_type: documentType, file_url: source }
        : { document_type: documentType };
    const form = formOf(fields);
    if (typeof source !== 'string') form.append('file', source, fileName(source, documentType));
    return unwrap(
      this.api.POST(`${PREFIX}/client/onboarding/documents`, {
        ...multipart(fields, form),
        ...init(options),
      }),
    );
  }

  /** Submits the application for review (409 ONBOARDING_INCOMPLETE lists what is missing in `errors`). */
  submit(options?: CallOptions): Promise<OnboardingProfile> {
    return unwrap(this.api.POST(`${PREFIX}/client/onboarding/submit`, init(options)));
  }

  /** Switches this session to `sandbox` or `live` (live needs an approved partner). */
  switchEnvironment(
    environment: EnvironmentSetting['environment'],
    options?: CallOptions,
  ): Promise<EnvironmentSetting> {
    return unwrap(
      this.api.PUT(`${PREFIX}/client/onboarding/environment`, { body: { environment }, ...init(options) }),
    );
  }
}
