import { z } from 'zod';

/**
 * The schema of a whole event as it travels on the bus: its id, its type (one of `types`), when it
 * happened and its payload. The payload repeats the id as `eventId` and must agree with the envelope:
 * a consumer deduplicates on it.
 */
export function busEventSchema<const T extends readonly [string, ...string[]], P extends z.ZodType<{ eventId: string }>>(
  types: T,
  payload: P,
) {
  return (
    z
      .object({ id: z.uuid(), type: z.enum(types), occurredAt: z.iso.datetime({ offset: true }), payload })
      // The generic object's output type is not resolved inside the function: name what the check reads.
      .refine((event) => (event as { id: string; payload: { eventId: string } }).payload.eventId === event.id, {
        message: 'payload.eventId must equal the envelope id',
        path: ['payload', 'eventId'],
      })
  );
}

/** An event type's routing key: the type without its `.vN` version, so a consumer's binding (`api_key.*`) receives every version. */
type RoutingKeyOf<T> = T extends `${infer Key}.v${number}` ? Key : never;

/** The routing key of each event type of a family (their kinds mapped to `RoutingKeyOf` their types). */
export function routingKeysOf<const Types extends Record<string, `${string}.v${number}`>>(
  types: Types,
): { readonly [Kind in keyof Types]: RoutingKeyOf<Types[Kind]> } {
  return Object.fromEntries(Object.entries(types).map(([kind, type]) => [kind, type.replace(/\.v\d+$/, '')])) as {
    [Kind in keyof Types]: RoutingKeyOf<Types[Kind]>;
  };
}
