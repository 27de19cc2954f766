import { useMutation } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { partnerApi } from '@/lib/api/partner-api';

/** Registration, e-mail verification and password reset: the account endpoints before a session. */

export interface Registration {
  business_name: string;
  email: string;
  phone: string;
  password: string;
  password_confirmation: string;
}

export const useRegister = () =>
  useMutation({
    mutationFn: (body: Registration) =>
      unwrap(partnerApi.POST('/baas/api/v1/client/onboarding/register', { body })),
  });

export const useVerifyEmail = () =>
  useMutation({
    mutationFn: (body: { email: string; otp: string }) =>
      unwrap(partnerApi.POST('/baas/api/v1/client/onboarding/verify-otp', { body })),
  });

export const useResendCode = () =>
  useMutation({
    mutationFn: (body: { email: string }) =>
      unwrap(partnerApi.POST('/baas/api/v1/client/onboarding/resend-otp', { body })),
  });

export const useForgotPassword = () =>
  useMutation({
    mutationFn: (body: { email: string }) =>
      unwrap(partnerApi.POST('/baas/api/v1/client/onboarding/password/forgot', { body })),
  });

export const useResetPassword = () =>
  useMutation({
    mutationFn: (body: { email: string; otp: string; password: string; password_confirmation: string }) =>
      unwrap(partnerApi.POST('/baas/api/v1/client/onboarding/password/reset', { body })),
  });
