import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { listAudit, operatorActor, verifyAuditChain } from '@acs/audit';
import { applySubscriptionEvent, parseSubscriptionEvent } from '../src/consumers/subscription-events-consumer.js';
import { IDENTITY_AUDIT } from '../src/domain/account-audit.js';
import { setTrialEnd, setUserRole } from '../src/domain/change-user.js';
import { startIdentity, type IdentityHarness } from './harness.js';
import { subscriptionEvent } from './subscription-events.js';

// Issue 30: every change to an account is in identity's audit trail, in the transaction of the change.
let identity: IdentityHarness;
beforeAll(async () => {
  identity = await startIdentity();
});
afterAll(async () => identity.stop());

describe("identity's audit trail", () => {
  it('records registration (the new account as actor), an operator role change, a trial change and a subscription event; never the password or its hash', async () => {
    const email = `audit-${Date.now()}@example.com`;
    const password = 'violet-anvil-0427-harbor';
    const response = await identity.register(
      { email, password, firstName: 'Ada', lastName: 'Lovelace' },
      { clientIp: '203.0.113.77', headers: { 'x-request-id': 'req-reg-1' } },
    );
    expect(response.status).toBe(201);
    const { id: userId } = (await response.json()) as { id: number };
    const operator = { ...identity.deps, actor: operatorActor('users cli') };
    await setUserRole(operator, email, 2);
    await setTrialEnd(operator, userId, null);
    expect(
      await applySubscriptionEvent(identity.deps, parseSubscriptionEvent(subscriptionEvent('activated', userId, { planType: 2 }))),
    ).toBe('applied');

    const entries = await listAudit(identity.db, IDENTITY_AUDIT, { userId, limit: 10, order: 'oldest' });
    expect(entries.map((entry) => [entry.action, entry.actor.type])).toEqual([
      ['account.created', 'user'],
      ['account.role_changed', 'operator'],
      ['account.trial_changed', 'operator'],
      ['account.subscription_changed', 'system'],
    ]);
    expect(entries[0]!.actor).toEqual({ type: 'user', id: String(userId), requestId: 'req-reg-1', clientAddress: '203.0.113.77' });
    expect(entries[1]!.before).toMatchObject({ accountRole: 0 });
    expect(entries[1]!.after).toMatchObject({ accountRole: 2 });
    expect(entries[3]!.after).toMatchObject({ planType: 2 });
    const text = JSON.stringify(entries);
    expect(text).not.toContain(password);
    expect(text).not.toContain('$2'); // no bcrypt hash
    expect(await verifyAuditChain(identity.db, IDENTITY_AUDIT)).toMatchObject({ problems: [] });
  });
});
