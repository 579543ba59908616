import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { listAudit, verifyAuditChain } from '@acs/audit';
import { createMemoryBus, type MemoryBus } from '@acs/bus';
import { signedFetch } from '@acs/testing';
import { BILLING_AUDIT } from '../src/domain/billing-audit.js';
import { INTERNAL_SECRET, SUBSCRIPTIONS_PATH, newUserId, startBilling, type BillingHarness } from './harness.js';

// Issue 30: every subscription change is in billing's audit trail, in the transaction of the change.
let bus: MemoryBus;
let billing: BillingHarness;
beforeAll(async () => {
  bus = createMemoryBus();
  billing = await startBilling({ bus });
});
afterAll(async () => {
  await billing.stop();
  await bus.close();
});

describe("billing's audit trail", () => {
  it('records activation, a plan change and a cancel with the user, the request and the address, before and after', async () => {
    const userId = newUserId();
    const call = (method: string, path: string, body?: unknown) =>
      signedFetch(billing.url, INTERNAL_SECRET, method, path, {
        audience: 'billing',
        context: { requestId: 'req-bill-1', keyId: 'dashboard', scopes: ['system:full-access'], userId, role: 0, clientIp: '192.0.2.44' },
        headers: { 'x-request-id': 'req-bill-1' },
        ...(body === undefined ? {} : { body }),
      });
    const monthly = (await (await call('POST', SUBSCRIPTIONS_PATH, { planId: 'monthly' })).json()) as { id: string };
    const yearly = (await (await call('POST', SUBSCRIPTIONS_PATH, { planId: 'yearly' })).json()) as { id: string };
    expect((await call('DELETE', `${SUBSCRIPTIONS_PATH}/${yearly.id}`)).status).toBe(200);

    const entries = await listAudit(billing.db, BILLING_AUDIT, { userId, limit: 10, order: 'oldest' });
    expect(entries.map((entry) => [entry.action, entry.targetId])).toEqual([
      ['subscription.activated', monthly.id],
      ['subscription.changed', yearly.id],
      ['subscription.canceled', yearly.id],
    ]);
    for (const entry of entries)
      expect(entry.actor).toEqual({ type: 'user', id: String(userId), requestId: 'req-bill-1', clientAddress: '192.0.2.44' });
    expect(entries[1]!.before).toMatchObject({ id: monthly.id, planId: 'monthly' });
    expect(entries[2]!.after).toMatchObject({ planId: 'yearly', cancelAtPeriodEnd: true });
    expect(await verifyAuditChain(billing.db, BILLING_AUDIT)).toMatchObject({ problems: [] });
  });
});
