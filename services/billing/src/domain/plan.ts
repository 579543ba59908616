import type { PlanQuota } from '@acs/contracts';

export type BillingInterval = 'none' | 'month' | 'year' | 'lifetime';

export interface Plan {
  id: string;
  name: string;
  planType: number;
  /** Minor units (cents). */
  priceMinor: number;
  currency: string;
  billingInterval: BillingInterval;
  /** Requests per UTC month and day, all of a subscriber's keys together; null: no cap. */
  quota: PlanQuota;
}

export const PLAN_TYPE_FREE = 0;
