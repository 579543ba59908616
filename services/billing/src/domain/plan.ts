export type BillingInterval = 'none' | 'month' | 'year' | 'lifetime';

export interface Plan {
  id: string;
  name: string;
  planType: number;
  /** Minor units (cents). */
  priceMinor: number;
  currency: string;
  billingInterval: BillingInterval;
}

export const PLAN_TYPE_FREE = 0;
