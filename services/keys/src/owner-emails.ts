import type { Db } from '@acs/db';

/**
 * The e-mail of each key owner, for the operators' `keys list` only: read from identity's `users`
 * table through the CLI's read-only handle on identity's database (libs/cli `peers`). The keys
 * service itself never reads another service's data; an operator's tool may, and says so when it can't.
 */
export async function ownerEmails(identity: Db, ownerIds: readonly number[]): Promise<Map<number, string>> {
  if (ownerIds.length === 0) return new Map();
  const { rows } = await identity.query<{ id: string | number; email: string }>(
    'SELECT id, email FROM users WHERE id = ANY($1::bigint[])',
    [ownerIds.map(String)],
  );
  return new Map(rows.map((row) => [Number(row.id), row.email]));
}

/** How `keys list` names a key's owner: "system", "user 7 <ada@example.com>", or "user 7" without the e-mail. */
export function ownerLabel(ownerUserId: number | null, emails: ReadonlyMap<number, string>): string {
  if (ownerUserId === null) return 'system';
  const email = emails.get(ownerUserId);
  return email === undefined ? `user ${ownerUserId}` : `user ${ownerUserId} <${email}>`;
}
