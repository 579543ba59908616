import { listPlansEndpoint } from '@acs/contracts';
import { Router, handle, type AppState } from '@acs/http';
import type { SubscriptionPlanView } from '../contracts.js';
import { listPlans } from '../data-access/plans-repository.js';
import type { BillingDeps } from '../domain/deps.js';
import type { Plan } from '../domain/plan.js';

const toPlanView = (plan: Plan): SubscriptionPlanView => ({
  id: plan.id,
  name: plan.name,
  planType: plan.planType,
  price: plan.priceMinor / 100,
  currency: plan.currency,
  billingInterval: plan.billingInterval,
  quota: plan.quota,
});

export function planRoutes(deps: BillingDeps): Router<AppState> {
  const router = new Router<AppState>();
  handle(router, listPlansEndpoint, async (ctx) => {
    ctx.body = { items: (await listPlans(deps.db)).map(toPlanView) };
  });
  return router;
}
