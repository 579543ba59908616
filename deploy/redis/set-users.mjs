// Makes the ACL users that deploy/redis/acl-users.sh prints on a running Redis, one ACL SETUSER per line
// (k8s/broker-users.yaml's Job runs it in our image; docs/security.md). Idempotent: a user that exists
// is reset to exactly these rules. Then ACL SAVE, when the server keeps its users in an ACL file.
//   sh deploy/redis/acl-users.sh | REDIS_ADMIN_URL=rediss://default:<password>@<host>:6380 node deploy/redis/set-users.mjs
import { text } from 'node:stream/consumers';
import { Redis } from 'ioredis';

const url = process.env.REDIS_ADMIN_URL;
if (!url) {
  console.error('set-users.mjs: set REDIS_ADMIN_URL (an account allowed ACL SETUSER)');
  process.exit(2);
}
const lines = (await text(process.stdin)).split('\n').filter((line) => line.trim() !== '');
if (lines.length === 0 || lines.some((line) => !line.startsWith('user '))) {
  console.error('set-users.mjs: expected ACL file lines ("user <name> <rules>...") on standard input');
  process.exit(2);
}
const redis = new Redis(url, { maxRetriesPerRequest: 1, enableReadyCheck: false });
try {
  for (const line of lines) {
    // A selector "( ... )" is one argument, as in an ACL file.
    const [, name, ...rules] = line.match(/\([^)]*\)|\S+/g);
    await redis.call('ACL', 'SETUSER', name, ...rules);
    console.log(`set-users: ${name} set`);
  }
  await redis.call('ACL', 'SAVE').then(
    () => console.log("set-users: ACL SAVE: written to the server's ACL file"),
    (err) => console.log(`set-users: ACL SAVE: ${err.message} (the users live until the server restarts: run this again then)`),
  );
} finally {
  redis.disconnect();
}
