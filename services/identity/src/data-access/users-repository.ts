import type { Queryable } from '@acs/db';
import type { PlanQuota } from '@acs/contracts';
import type { User } from '../domain/user.js';

interface UserRow {
  id: number | string;
  email: string;
  password_hash: string;
  first_name: string;
  last_name: string;
  account_role: number;
  trial_ends_at: Date | null;
  subscription_ends_at: Date | null;
  plan_type: number;
  plan_id: string | null;
  quotas: Record<string, PlanQuota> | null;
  version: number | string;
  ended_sessions: string[] | null;
  email_verified_at: Date | null;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const TABLE_COLUMNS =
  'id, email, password_hash, first_name, last_name, account_role, trial_ends_at, subscription_ends_at, plan_type, plan_id, version, created_at, updated_at, ended_sessions, email_verified_at, deleted_at';
/**
 * The quotas the user's record may need, read with the row (also in RETURNING): their plan's, the
 * trial's and the no-subscription one; which applies depends on the moment (toAuthzRecord).
 */
const quotasOf = (table: string): string =>
  `(SELECT json_object_agg(q.plan_id, json_build_object('perMonth', q.per_month, 'perDay', q.per_day))
      FROM plan_quotas q WHERE q.plan_id IN (${table}.plan_id, 'trial', 'none')) AS quotas`;
const COLUMNS = `${TABLE_COLUMNS}, ${quotasOf('users')}`;
const U_COLUMNS = `${TABLE_COLUMNS.split(', ')
  .map((column) => `u.${column}`)
  .join(', ')}, ${quotasOf('u')}`;

function fromRow(row: UserRow): User {
  return {
    id: Number(row.id),
    email: row.email,
    passwordHash: row.password_hash,
    firstName: row.first_name,
    lastName: row.last_name,
    accountRole: Number(row.account_role),
    trialEndsAt: row.trial_ends_at,
    subscriptionEndsAt: row.subscription_ends_at,
    planType: Number(row.plan_type),
    planId: row.plan_id,
    quotas: row.quotas ?? {},
    version: Number(row.version),
    endedSessions: row.ended_sessions ?? [],
    emailVerifiedAt: row.email_verified_at,
    deletedAt: row.deleted_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface NewUser {
  email: string;
  passwordHash: string;
  firstName: string;
  lastName: string;
  trialEndsAt: Date | null;
}

/** The columns are named: nothing from a request body but these can reach the row. A taken e-mail (any case) throws a unique violation. */
export async function insertUser(db: Queryable, input: NewUser): Promise<User> {
  const { rows } = await db.query<UserRow>(
    `INSERT INTO users (email, password_hash, first_name, last_name, trial_ends_at) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    [input.email, input.passwordHash, input.firstName, input.lastName, input.trialEndsAt],
  );
  return fromRow(rows[0]!);
}

/** Case-insensitive, through the unique index on lower(email). */
export async function findUserByEmail(db: Queryable, email: string): Promise<User | null> {
  const { rows } = await db.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE lower(email) = lower($1)`, [email]);
  return rows[0] ? fromRow(rows[0]) : null;
}

export async function findUserById(db: Queryable, id: number): Promise<User | null> {
  const { rows } = await db.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE id = $1`, [id]);
  return rows[0] ? fromRow(rows[0]) : null;
}

/** Sets the account role; returns the user and the role it had (for the audit line), or null when no such e-mail. */
export async function updateAccountRole(db: Queryable, email: string, role: number): Promise<{ user: User; previousRole: number } | null> {
  const { rows } = await db.query<UserRow & { previous_role: number }>(
    `UPDATE users u SET account_role = $2, updated_at = now(), version = u.version + 1
     FROM (SELECT id, account_role AS previous_role FROM users WHERE lower(email) = lower($1) FOR UPDATE) old
     WHERE u.id = old.id RETURNING ${U_COLUMNS}, old.previous_role`,
    [email, role],
  );
  return rows[0] ? { user: fromRow(rows[0]), previousRole: Number(rows[0].previous_role) } : null;
}

export async function updateTrialEnd(db: Queryable, id: number, trialEndsAt: Date | null): Promise<User | null> {
  const { rows } = await db.query<UserRow>(
    `UPDATE users SET trial_ends_at = $2, updated_at = now(), version = version + 1 WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, trialEndsAt],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

/**
 * The seed Admin: created without a trial, or updated with the new password hash and at least
 * the Admin role (a SuperAdmin stays one). The e-mail's spelling of an existing account is kept.
 */
export async function upsertAdmin(
  db: Queryable,
  input: { email: string; passwordHash: string; firstName: string; lastName: string; role: number },
): Promise<User> {
  const { rows } = await db.query<UserRow>(
    `INSERT INTO users (email, password_hash, first_name, last_name, account_role) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT ((lower(email))) DO UPDATE SET password_hash = EXCLUDED.password_hash,
       account_role = GREATEST(users.account_role, EXCLUDED.account_role), updated_at = now(), version = users.version + 1
     RETURNING ${COLUMNS}`,
    [input.email, input.passwordHash, input.firstName, input.lastName, input.role],
  );
  return fromRow(rows[0]!);
}

/**
 * The next `limit` users after `afterId` whose subscription to the plan is still running, with their
 * version bumped (so their records' rewrite replaces what the cache has), locked until the caller commits.
 */
export async function bumpPlanUsers(tx: Queryable, planId: string, afterId: number, limit: number): Promise<User[]> {
  const { rows } = await tx.query<UserRow>(
    `UPDATE users SET version = version + 1, updated_at = now()
      WHERE id IN (SELECT id FROM users WHERE plan_id = $1 AND subscription_ends_at > now() AND id > $2 ORDER BY id LIMIT $3 FOR UPDATE)
      RETURNING ${COLUMNS}`,
    [planId, afterId, limit],
  );
  return rows.map(fromRow).sort((a, b) => a.id - b.id);
}
