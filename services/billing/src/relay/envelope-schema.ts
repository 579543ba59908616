import type { BusEnvelope } from '@acs/bus';
import type { z } from 'zod';
import { PLAN_QUOTA_EVENT_TYPE, planQuotaEventSchema, subscriptionEventSchema } from '../contracts.js';

/** The contract an outbox row's envelope is checked against before it is published: plan events (issue 29) or subscription events. */
export const envelopeSchemaOf = (type: string): z.ZodType<BusEnvelope> =>
  type === PLAN_QUOTA_EVENT_TYPE ? planQuotaEventSchema : subscriptionEventSchema;
