import { operatorActor } from '@acs/audit';
import { UsageError, assertNoOperands, cliStoreEnvironment, notWrittenThroughWarning, openCliStore, runCli } from '@acs/cli';
import { AUTHZ_CACHE_TTL_SECONDS, ROLE_NAMES, roleName, type RoleName } from '@acs/contracts';
import { setUserRole } from './domain/change-user.js';
import { accessAt, nowSeconds } from './domain/user.js';
import { IDENTITY_MIGRATIONS_DIR } from './service.js';

const HELP = `Manage user accounts.

Usage: npm run users -- <command> [options]

Commands:
  set-role --email EMAIL --role free|subscriber|admin|superadmin
        Set the account role of the user with that e-mail (any case). The gateway applies it on
        the user's next request; no new login is needed. The effective role is never below
        Subscriber during a trial or an active subscription.

Options:
  -h, --help  Show this text.

${cliStoreEnvironment('identity', true)}`;

const NOT_WRITTEN_THROUGH = notWrittenThroughWarning('cached authorization record', AUTHZ_CACHE_TTL_SECONDS);

runCli({
  help: HELP,
  commands: ['set-role'],
  options: {
    email: { type: 'string' },
    role: { type: 'string' },
  },
  async run({ operands, values }) {
    assertNoOperands(operands);
    if (!values.email) throw new UsageError('set-role needs --email EMAIL');
    if (!values.role) throw new UsageError(`set-role needs --role ${ROLE_NAMES.join('|')}`);
    const role = ROLE_NAMES.indexOf(values.role.toLowerCase() as RoleName);
    if (role < 0) throw new UsageError(`Unknown role "${values.role}": expected one of ${ROLE_NAMES.join(', ')}`);

    const store = await openCliStore({ service: 'identity', cli: 'users cli', migrationsDir: IDENTITY_MIGRATIONS_DIR, sharedCache: true });
    try {
      const user = await setUserRole({ ...store, actor: operatorActor('users cli') }, values.email, role);
      const { role: effective } = accessAt(user, nowSeconds());
      console.log(
        `User ${user.id} (${user.email}): account role ${roleName(user.accountRole)} (${user.accountRole}); effective role now ${roleName(effective)} (${effective}).`,
      );
      // The write-through went to this process's own memory: a gateway caching the record elsewhere still has the old one.
      if (store.cacheNotShared) console.error(NOT_WRITTEN_THROUGH);
    } finally {
      await store.close();
    }
  },
});
