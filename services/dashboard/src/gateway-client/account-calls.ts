import {
  changePasswordEndpoint,
  completePasswordResetEndpoint,
  deleteAccountEndpoint,
  endOtherSessionsEndpoint,
  endSessionEndpoint,
  getAccountEndpoint,
  listAuditLogEndpoint,
  listSessionsEndpoint,
  requestPasswordResetEndpoint,
  resendVerificationEndpoint,
  verifyEmailEndpoint,
} from '@acs/contracts';
import type { GatewayClient } from './gateway-client.js';
import { answerOf, type CallerContext } from './operation-call.js';

/** The account itself: its password, e-mail address, sessions, audit trail, and its deletion. */
export function accountCalls(gateway: GatewayClient) {
  return {
    changePassword: async (ctx: CallerContext, currentPassword: string, newPassword: string) =>
      answerOf(gateway, changePasswordEndpoint, ctx, { body: { currentPassword, newPassword } }),
    requestPasswordReset: async (ctx: CallerContext, email: string) =>
      answerOf(gateway, requestPasswordResetEndpoint, ctx, { body: { email } }),
    completePasswordReset: async (ctx: CallerContext, token: string, newPassword: string) =>
      answerOf(gateway, completePasswordResetEndpoint, ctx, { body: { token, newPassword } }),
    getAccount: async (ctx: CallerContext) => answerOf(gateway, getAccountEndpoint, ctx),
    resendVerification: async (ctx: CallerContext) => answerOf(gateway, resendVerificationEndpoint, ctx),
    verifyEmail: async (ctx: CallerContext, token: string) => answerOf(gateway, verifyEmailEndpoint, ctx, { body: { token } }),
    listSessions: async (ctx: CallerContext) => (await answerOf(gateway, listSessionsEndpoint, ctx)).items,
    endOtherSessions: async (ctx: CallerContext) => answerOf(gateway, endOtherSessionsEndpoint, ctx),
    endSession: async (ctx: CallerContext, id: string) => answerOf(gateway, endSessionEndpoint, ctx, { id }),
    /** The user's audit trail (issue 30), newest first; `cursor` continues after an earlier page. */
    listAuditLog: async (ctx: CallerContext, query: { pageSize: number; targetType?: string; targetId?: string; cursor?: string }) =>
      answerOf(gateway, listAuditLogEndpoint, ctx, {
        query: new URLSearchParams(Object.entries(query).map(([name, value]): [string, string] => [name, String(value)])).toString(),
      }),
    /** One page of the user's audit trail, newest first; `cursor` is the nextCursor of the page before. */
    auditLogPage: async (ctx: CallerContext, cursor: string | null) =>
      answerOf(gateway, listAuditLogEndpoint, ctx, { query: `pageSize=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}` }),
    deleteAccount: async (ctx: CallerContext, password: string, code: string | undefined) =>
      answerOf(gateway, deleteAccountEndpoint, ctx, { body: code ? { password, code } : { password } }),
  };
}
