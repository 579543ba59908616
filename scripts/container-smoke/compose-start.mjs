// Starts the containers `podman-compose up --no-start` created, as `docker compose up` would:
// in depends_on order, each only once its dependencies meet their condition (service_healthy:
// the dependency's own health check passes). Debian's podman-compose 1.0.3 starts everything at
// once and ignores conditions, and podman runs health checks from systemd timers, which this
// machine has not; so the checks are run here, exactly as docker-compose.yml writes them
// (CMD: exec'd as given; CMD-SHELL: /bin/sh -c), every `interval`, failing after `retries`.
//   node scripts/container-smoke/compose-start.mjs <project> <compose file>...
// Prints when each service started and became healthy; exits 1 when one never does.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mergedServices } from './compose-files.mjs';

const run = promisify(execFile);
if (process.argv.includes('--help') || process.argv.length < 4) {
  console.log('usage: node scripts/container-smoke/compose-start.mjs <project> <compose file>...');
  process.exit(process.argv.includes('--help') ? 0 : 2);
}
const [, , project, ...files] = process.argv;

// The two keys this needs, merged as compose merges files.
const services = mergedServices(files, ['depends_on', 'healthcheck']);

const dependencies = (name) => {
  const dependsOn = services[name].depends_on ?? {};
  return Array.isArray(dependsOn)
    ? dependsOn.map((d) => [d, 'service_started'])
    : Object.entries(dependsOn).map(([d, c]) => [d, c?.condition ?? 'service_started']);
};
const seconds = (text, fallback) => {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(String(text ?? ''));
  if (!match) return fallback;
  return Number(match[1]) * ({ ms: 0.001, s: 1, m: 60 }[match[2] ?? 's'] ?? 1);
};
const container = (name) => `${project}_${name}_1`;
const t0 = Date.now();
const elapsed = () => `+${((Date.now() - t0) / 1000).toFixed(1)}s`;

function healthCommand(test) {
  if (typeof test === 'string') return ['/bin/sh', '-c', test];
  if (test[0] === 'CMD') return test.slice(1);
  if (test[0] === 'CMD-SHELL') return ['/bin/sh', '-c', test[1]];
  throw new Error(`health check ${JSON.stringify(test)}: only CMD and CMD-SHELL are run here`);
}

async function checkOnce(name) {
  const { test, timeout } = services[name].healthcheck;
  try {
    await run('podman', ['exec', container(name), ...healthCommand(test)], { timeout: seconds(timeout, 30) * 1000 });
    return { ok: true };
  } catch (err) {
    return {
      ok: false,
      why: String(err.stderr || err.stdout || err.message)
        .trim()
        .split('\n')
        .slice(-2)
        .join(' '),
    };
  }
}

const healthy = new Map();
function becomeHealthy(name) {
  if (!healthy.has(name)) {
    healthy.set(
      name,
      (async () => {
        const check = services[name].healthcheck;
        if (!check) throw new Error(`${name} has no health check, but a dependant waits for service_healthy`);
        const interval = seconds(check.interval, 30);
        const retries = Number(check.retries ?? 3);
        const startPeriod = seconds(check.start_period, 0);
        const started = Date.now();
        let failures = 0;
        let last = '';
        for (;;) {
          const result = await checkOnce(name);
          if (result.ok) {
            console.log(`compose: ${elapsed()} ${name} healthy`);
            return;
          }
          last = result.why;
          if ((Date.now() - started) / 1000 > startPeriod) failures += 1;
          if (failures >= retries) throw new Error(`${name} unhealthy after ${retries} failed checks: ${last}`);
          await new Promise((r) => setTimeout(r, interval * 1000));
        }
      })(),
    );
  }
  return healthy.get(name);
}

const started = new Map();
function start(name) {
  if (!started.has(name)) {
    started.set(
      name,
      (async () => {
        for (const [dependency, condition] of dependencies(name)) {
          if (!services[dependency]) throw new Error(`${name} depends on ${dependency}, which is not a service`);
          await start(dependency);
          if (condition === 'service_healthy') await becomeHealthy(dependency);
          else if (condition !== 'service_started') throw new Error(`${name}: depends_on condition ${condition} is not run here`);
        }
        await run('podman', ['start', container(name)]);
        console.log(
          `compose: ${elapsed()} ${name} started${
            dependencies(name).length
              ? ` (after ${dependencies(name)
                  .map(([d, c]) => `${d} ${c.replace('service_', '')}`)
                  .join(', ')})`
              : ''
          }`,
        );
      })(),
    );
  }
  return started.get(name);
}

try {
  const names = Object.keys(services);
  await Promise.all(names.map(start));
  // Every service with a health check must become healthy, also those nothing waits for.
  await Promise.all(names.filter((n) => services[n].healthcheck).map(becomeHealthy));
  console.log(`compose: all ${names.length} services started in depends_on order and healthy (${elapsed()})`);
} catch (err) {
  console.error(`compose: FAILED: ${err.message}`);
  process.exit(1);
}
