import {
  completeTwoFactorLoginEndpoint,
  confirmTwoFactorEndpoint,
  disableTwoFactorEndpoint,
  enrollTwoFactorEndpoint,
  loginChallengeSchema,
  loginEndpoint,
  loginResponseSchema,
  regenerateRecoveryCodesEndpoint,
  registerEndpoint,
} from '@acs/contracts';
import { z } from 'zod';
import type { GatewayClient } from './gateway-client.js';
import { answerOf, bodyOf, callOf, type CallerContext } from './operation-call.js';

export interface NewAccount {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
}

/** Registration, sign-in, and the second factor: its sign-in step, enrolment, removal and recovery codes. */
export function signInCalls(gateway: GatewayClient) {
  return {
    /** The token, or for an account with two-factor sign-in the challenge its code completes (issue 32). */
    login: async (ctx: CallerContext, email: string, password: string) =>
      bodyOf(gateway, z.union([loginResponseSchema, loginChallengeSchema]), callOf(loginEndpoint, ctx, { body: { email, password } })),
    completeTwoFactorLogin: async (ctx: CallerContext, challenge: string, answer: { code: string } | { recoveryCode: string }) =>
      answerOf(gateway, completeTwoFactorLoginEndpoint, ctx, { body: { challenge, ...answer } }),
    enrollTwoFactor: async (ctx: CallerContext) => answerOf(gateway, enrollTwoFactorEndpoint, ctx),
    confirmTwoFactor: async (ctx: CallerContext, code: string) => answerOf(gateway, confirmTwoFactorEndpoint, ctx, { body: { code } }),
    disableTwoFactor: async (ctx: CallerContext, password: string, code: string) =>
      answerOf(gateway, disableTwoFactorEndpoint, ctx, { body: { password, code } }),
    regenerateRecoveryCodes: async (ctx: CallerContext, code: string) =>
      answerOf(gateway, regenerateRecoveryCodesEndpoint, ctx, { body: { code } }),
    // Any 2xx will do, whatever its body: identity may acknowledge a taken e-mail exactly like a
    // new account (nothing is shown from the answer; the sign-in that follows is the proof).
    register: async (ctx: CallerContext, account: NewAccount): Promise<void> => {
      await gateway.send(z.unknown(), callOf(registerEndpoint, ctx, { body: account }));
    },
  };
}
