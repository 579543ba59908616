import type { Plan } from './plan.js';

export interface PaymentRequest {
  userId: number;
  plan: Plan;
  /** The client's Idempotency-Key, when given: a real provider should receive it too. */
  idempotencyKey: string | null;
}

export type PaymentDecision = { approved: true; reference: string | null } | { approved: false; reason: string };

/**
 * The seam where a payment provider plugs in. It is asked before a subscription is activated;
 * a refusal answers 402 and changes nothing. There is no provider today (README.md).
 */
export interface PaymentGateway {
  approve(request: PaymentRequest): Promise<PaymentDecision>;
}

/** Approves everything without charging anyone: this deployment has no payment provider. */
export const noPaymentGateway: PaymentGateway = {
  async approve() {
    return { approved: true, reference: null };
  },
};
