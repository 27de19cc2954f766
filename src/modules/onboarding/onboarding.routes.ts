import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestMeta, sessionOf } from '../../platform/http/auth.js';
import { FileResponse, fileHeaders, sendFile } from '../../platform/http/file-download.js';
import { operation } from '../../platform/http/route.js';
import { success } from '../../platform/http/schemas.js';
import {
  DocumentBody,
  DocumentFileParams,
  DocumentResponse,
  EnvironmentBody,
  EnvironmentResponse,
  ProfileResponse,
  RepresentativeBody,
  RepresentativeResponse,
  UpdateProfileBody,
} from './onboarding.schemas.js';
import type { OnboardingService } from './onboarding.service.js';

const tags = ['Onboarding'];

export const onboardingRoutes: FastifyPluginAsyncTypebox<{ onboarding: OnboardingService }> = async (
  app,
  { onboarding },
) => {
  app.get(
    '/client/onboarding/business-info',
    operation({
      operationId: 'getOnboardingProfile',
      preload: true,
      summary: 'Read the whole onboarding profile',
      description:
        'Profile fields, representative, current documents, the document checklist for the business_type ' +
        'and `requirements`: what the partner must still do (currently_due), what awaits the operator ' +
        '(pending_review) and why anything was rejected (errors).',
      tags,
      auth: 'session',
      access: 'read',
      response: { 200: ProfileResponse },
    }),
    async (request) => {
      const data = await onboarding.getProfile(sessionOf(request), request.preloaded);
      return success('Onboarding profile.', data);
    },
  );

  app.put(
    '/client/onboarding/business-info',
    operation({
      operationId: 'updateOnboardingProfile',
      summary: 'Update profile fields (partial)',
      description:
        'Only the fields sent change; a body with none of them (empty, blank or unknown fields only) is 422. ' +
        'Refused with ONBOARDING_LOCKED while under_review or rejected; once active, only address and website may change. ' +
        'business_name and phone, given at registration, may be corrected until the application is first submitted ' +
        '(409 ONBOARDING_LOCKED afterwards, also when the operator sends it back for changes).',
      tags,
      auth: 'session',
      access: 'onboarding',
      body: UpdateProfileBody,
      response: { 200: ProfileResponse },
      errors: ['ONBOARDING_LOCKED'],
    }),
    async (request) => {
      const data = await onboarding.updateProfile(sessionOf(request), request.body, requestMeta(request));
      return success('Profile updated.', data);
    },
  );

  app.post(
    '/client/onboarding/representative',
    operation({
      operationId: 'saveComplianceRepresentative',
      summary: 'Add or update the compliance representative (runs the KYC check)',
      description:
        'multipart/form-data. Exactly one of id_file (PDF, JPEG or PNG by content, at most 5 MiB) and ' +
        'id_file_url. The BVN check runs synchronously; the representative is saved whether or not it ' +
        'passes (`kyc.ok`). Once a check has passed, the BVN cannot change (409 BVN_IMMUTABLE). The ID ' +
        'becomes the valid_id document; the previous ID file is deleted unless an operator decided it. ' +
        '201 on the first save, 200 afterwards. 503 STORAGE_FULL (with Retry-After) when the server has no ' +
        'room for the file: nothing was saved, retry later.',
      tags,
      auth: 'session',
      access: 'onboarding',
      body: RepresentativeBody,
      consumes: 'multipart',
      response: { 201: RepresentativeResponse, 200: RepresentativeResponse },
      errors: ['BVN_IMMUTABLE', 'ONBOARDING_LOCKED', 'STORAGE_FULL'],
    }),
    async (request, reply) => {
      const { created, data } = await onboarding.saveRepresentative(
        sessionOf(request),
        request.body,
        requestMeta(request),
      );
      return reply.code(created ? 201 : 200).send(success('Representative saved.', data));
    },
  );

  app.post(
    '/client/onboarding/documents',
    operation({
      operationId: 'uploadOnboardingDocument',
      summary: 'Upload a company document (file or URL)',
      description:
        'multipart/form-data: document_type and exactly one of file (PDF, JPEG or PNG by content, at most ' +
        '5 MiB) and file_url. A new upload of a type supersedes the previous one, whose file is deleted ' +
        'unless an operator already decided it (so an unreviewed partner holds one file per type). 503 ' +
        'STORAGE_FULL (with Retry-After) when the server has no room for the file: nothing was saved, retry later.',
      tags,
      auth: 'session',
      access: 'onboarding',
      body: DocumentBody,
      consumes: 'multipart',
      response: { 201: DocumentResponse },
      errors: ['ONBOARDING_LOCKED', 'STORAGE_FULL'],
    }),
    async (request, reply) => {
      const data = await onboarding.uploadDocument(sessionOf(request), request.body, requestMeta(request));
      return reply.code(201).send(success('Document uploaded.', data));
    },
  );

  app.get(
    '/client/onboarding/documents/:document_id/file',
    operation({
      operationId: 'downloadOnboardingDocumentFile',
      summary: 'Download a document you uploaded',
      description:
        'Streams the stored bytes of one of your documents (its `id` from the profile) with their detected ' +
        'Content-Type, as an attachment no page may frame, under a sandboxing Content-Security-Policy. ' +
        "Another partner's document is 404, as are URL documents (no stored file) and an upload superseded " +
        'before an operator decided it (its file is deleted).',
      tags,
      auth: 'session',
      access: 'read',
      params: DocumentFileParams,
      response: { 200: FileResponse },
      successHeaders: fileHeaders,
    }),
    async (request, reply) => {
      const file = await onboarding.openDocumentFile(sessionOf(request), request.params.document_id);
      return sendFile(reply, file, `${file.document.document_type}-${file.document.id}`);
    },
  );

  app.post(
    '/client/onboarding/submit',
    operation({
      operationId: 'submitOnboarding',
      summary: 'Submit the application for review',
      description:
        'in_progress → under_review when business_type is set, the representative passed KYC and every ' +
        'checklist document is uploaded; otherwise 409 ONBOARDING_INCOMPLETE with `errors` naming each gap.',
      tags,
      auth: 'session',
      access: 'onboarding',
      response: { 200: ProfileResponse },
      errors: ['ONBOARDING_INCOMPLETE', 'ONBOARDING_LOCKED'],
    }),
    async (request) => {
      const data = await onboarding.submit(sessionOf(request), requestMeta(request));
      return success('Application submitted for review.', data);
    },
  );

  app.put(
    '/client/onboarding/environment',
    operation({
      operationId: 'switchEnvironment',
      summary: "Switch this session's environment",
      description:
        'live needs onboarding_status active (403 ONBOARDING_NOT_APPROVED); sandbox is always allowed.',
      tags,
      auth: 'session',
      access: 'read',
      suspendedLiveSession: true,
      body: EnvironmentBody,
      response: { 200: EnvironmentResponse },
      errors: ['ONBOARDING_NOT_APPROVED'],
    }),
    async (request) => {
      const data = await onboarding.switchEnvironment(
        sessionOf(request),
        request.body.environment,
        requestMeta(request),
      );
      return success(`Environment switched to ${data.environment}.`, data);
    },
  );
};
