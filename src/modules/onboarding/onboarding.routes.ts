import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sessionOf } from '../../platform/http/auth.js';
import { operation } from '../../platform/http/route.js';
import { ProfileResponse } from './onboarding.schemas.js';
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
      summary: 'Read the whole onboarding profile',
      tags,
      auth: 'session',
      response: { 200: ProfileResponse },
    }),
    async (request) => {
      const data = await onboarding.getProfile(sessionOf(request));
      return { status: 'success', message: 'Onboarding profile.', data };
    },
  );
};
