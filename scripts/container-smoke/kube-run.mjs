// Plays the Deployments of kube-manifest.mjs's plan with `podman kube play`, one pod each, in the
// order the plan gives (dependencies first), and checks each container against what the manifests
// say (docs/deploy.md, "Running the deployment files with podman"):
//   - its command is the manifest's, it runs as runAsUser, its root file system is read-only;
//   - its environment holds every variable the manifest gives (literal, Secret and ConfigMap values
//     as given), and each is one the process reads: the image's own config schema is asked, in the
//     container;
//   - the ports it listens on are exactly the containerPorts named;
//   - each probe (startup, liveness, readiness) answers on its path and port, as the kubelet would
//     ask it (HTTP 200-399 from outside the pod).
//   node scripts/container-smoke/kube-run.mjs <plan.json> <network> <host address> <out dir>
// Writes <out dir>/gateway-url (for the journey) and <out dir>/containers (one name a line).
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';

const exec = promisify(execFile);
if (process.argv.includes('--help') || process.argv.length < 6) {
  console.log('usage: node scripts/container-smoke/kube-run.mjs <plan.json> <network> <host address> <out dir>');
  process.exit(process.argv.includes('--help') ? 0 : 2);
}
const [, , planFile, network, hostAddress, outDir] = process.argv;
const plan = JSON.parse(readFileSync(planFile, 'utf8'));
const SECRET_NAME = 'acs-secrets';
const SERVERS = ['postgres', 'redis', 'rabbitmq'];

const say = (what) => console.log(`kube: ${what}`);
const problems = [];
const podman = async (...args) => (await exec('podman', args, { maxBuffer: 16 << 20 })).stdout.trim();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function createSecret() {
  await podman('secret', 'rm', SECRET_NAME).catch(() => {});
  const file = join(outDir, 'secret.json');
  const data = Object.fromEntries(Object.entries(plan.secretValues).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
  writeFileSync(file, JSON.stringify(data), { mode: 0o600 });
  await podman('secret', 'create', SECRET_NAME, file);
}

function resolvePort(container, port) {
  if (typeof port === 'number') return port;
  const number = container.ports[port];
  if (number === undefined) throw new Error(`${container.name}: a probe names port ${port}, which the container does not declare`);
  return number;
}

/** One probe, asked as the kubelet asks it: HTTP 200-399, a TCP connect, or an exec exiting 0. */
async function probeOnce(container, name, address, probe) {
  const timeoutMs = (probe.timeoutSeconds ?? 1) * 1000;
  if (probe.httpGet) {
    const url = `http://${address}:${resolvePort(container, probe.httpGet.port)}${probe.httpGet.path ?? '/'}`;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
      return { ok: res.status >= 200 && res.status < 400, status: res.status, what: `GET ${url}` };
    } catch (err) {
      return { ok: false, status: null, what: `GET ${url}`, why: err.cause?.code ?? err.message };
    }
  }
  if (probe.tcpSocket) {
    const port = resolvePort(container, probe.tcpSocket.port);
    const ok = await new Promise((resolve) => {
      const socket = connect({ host: address, port, timeout: timeoutMs }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false)).on('timeout', () => resolve(false));
    });
    return { ok, what: `TCP ${address}:${port}` };
  }
  if (probe.exec) {
    const ok = await exec('podman', ['exec', name, ...probe.exec.command], { timeout: timeoutMs }).then(
      () => true,
      () => false,
    );
    return { ok, what: `exec ${probe.exec.command.join(' ')}` };
  }
  throw new Error(`${container.name}: a probe with neither httpGet, tcpSocket nor exec`);
}

/** False once the container has exited or been restarted (a crash loop never becomes ready). */
async function isRunning(name) {
  const [status, restarts] = (await podman('inspect', name, '--format', '{{.State.Status}} {{.RestartCount}}')).split(' ');
  return status === 'running' && restarts === '0';
}

/**
 * Waits for a probe as long as the manifest lets it fail (failureThreshold x periodSeconds, after
 * initialDelaySeconds). A 404 ends the wait at once: a path that does not exist never succeeds.
 */
async function waitForProbe(container, name, address, probe) {
  const budgetMs = ((probe.initialDelaySeconds ?? 0) + (probe.failureThreshold ?? 3) * (probe.periodSeconds ?? 10)) * 1000;
  const deadline = Date.now() + Math.max(budgetMs, 5000);
  let last;
  while (Date.now() < deadline) {
    last = await probeOnce(container, name, address, probe);
    if (last.ok || last.status === 404 || !(await isRunning(name))) break;
    await sleep(Math.min((probe.periodSeconds ?? 10) * 1000, 1000));
  }
  return last;
}

async function play(deployment, addresses) {
  const hostAliases = [
    { ip: hostAddress, hostnames: SERVERS },
    ...deployment.calls.map((service) => ({ ip: addresses.get(service), hostnames: [service] })),
  ];
  const template = deployment.deployment.spec.template;
  const played = {
    ...deployment.deployment,
    spec: { ...deployment.deployment.spec, template: { ...template, spec: { ...template.spec, hostAliases } } },
  };
  const file = join(outDir, `${deployment.name}.yaml`);
  writeFileSync(file, [...deployment.configMaps.map((n) => plan.configMaps[n]), played].map((d) => stringify(d)).join('---\n'));
  await podman('kube', 'play', '--network', network, file);
  const pod = `${deployment.name}-pod-0`;
  const names = deployment.containers.map((c) => `${pod}-${c.name}`);
  const address = await podman('inspect', names[0], '--format', '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}');
  return { pod, names, address };
}

/** A Job's pod, run once to its end: it must exit 0 (its output is printed either way). */
async function runJob(job) {
  const pod = { ...job.pod, spec: { ...job.pod.spec, hostAliases: [{ ip: hostAddress, hostnames: SERVERS }] } };
  const file = join(outDir, `${job.name}.yaml`);
  writeFileSync(file, [...job.configMaps.map((n) => plan.configMaps[n]), pod].map((d) => stringify(d)).join('---\n'));
  await podman('kube', 'play', '--network', network, file);
  const name = `${job.name}-${job.container}`;
  try {
    const code = await podman('wait', name);
    const log = (
      await exec('podman', ['logs', name]).then(
        (r) => `${r.stdout}${r.stderr}`,
        () => '',
      )
    )
      .trim()
      .replace(/\n/g, ' | ');
    if (code !== '0') problems.push(`Job ${job.name}: its pod exited ${code}: ${log}`);
    else say(`Job ${job.name}: its pod exited 0: ${log}`);
  } finally {
    await podman('pod', 'rm', '-f', job.name).catch(() => {});
  }
}

async function configVariables(name, image, running, command) {
  const entry = command?.[1] ?? '';
  const match = /^(.+)\/dist\/main\.js$/.exec(entry);
  if (!match) return { error: `command ${JSON.stringify(command)} does not run <package>/dist/main.js` };
  const script = `const m = await import('/app/${match[1]}/dist/config.js');
const schema = Object.entries(m).find(([k]) => k.endsWith('ConfigSchema'));
if (!schema) throw new Error('no *ConfigSchema export');
console.log(JSON.stringify(Object.keys(schema[1].shape)));`;
  try {
    // In the container itself; one that is not running is asked through a new one of its image.
    const node = ['node', '--input-type=module', '-e', script];
    const out = running ? await podman('exec', name, ...node) : await podman('run', '--rm', '--network', 'none', image, ...node);
    return { names: new Set(JSON.parse(out)) };
  } catch (err) {
    return {
      error: `asking ${match[1]}/dist/config.js: ${String(err.stderr || err.message)
        .trim()
        .split('\n')
        .pop()}`,
    };
  }
}

async function listeningPorts(name) {
  const tables = await podman('exec', name, 'cat', '/proc/net/tcp', '/proc/net/tcp6');
  const ports = new Set();
  for (const line of tables.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields[3] === '0A') ports.add(Number.parseInt(fields[1].split(':').pop(), 16));
  }
  return ports;
}

async function checkContainer(deployment, container, name, address) {
  const where = `${deployment.name}/${container.name}`;
  const inspect = JSON.parse(await podman('inspect', name))[0];
  const problem = (what) => problems.push(`${where}: ${what}`);

  const command = [inspect.Path, ...inspect.Args];
  if (container.command && JSON.stringify(command) !== JSON.stringify(container.command))
    problem(`runs ${JSON.stringify(command)}, the manifest says ${JSON.stringify(container.command)}`);

  const env = new Map(inspect.Config.Env.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
  const given = new Map();
  for (const e of container.env) given.set(e.name, e.secretKey ? plan.secretValues[e.secretKey] : e.value);
  for (const mapName of container.envFrom) {
    const map = plan.configMaps[mapName];
    if (!map) problem(`envFrom names ConfigMap ${mapName}, which the manifests do not define`);
    for (const [key, value] of Object.entries(map?.data ?? {})) if (!given.has(key)) given.set(key, String(value));
  }
  for (const [key, value] of given) {
    if (!env.has(key)) problem(`${key} is not in the container's environment`);
    else if (value !== null && env.get(key) !== value)
      problem(`${key} is ${JSON.stringify(env.get(key))}, the manifests give ${JSON.stringify(value)}`);
  }
  const running = inspect.State.Status === 'running' && inspect.RestartCount === 0;
  const known = await configVariables(name, inspect.Image, running, container.command);
  if (known.error) problem(known.error);
  else
    for (const key of given.keys())
      if (!known.names.has(key)) problem(`${key} is given, but the process reads no such variable (not in its config schema)`);

  if (!running) {
    const log = await podman('logs', '--tail', '5', name).catch(() => '');
    problem(
      `is ${inspect.State.Status} after ${inspect.RestartCount} restarts (exit code ${inspect.State.ExitCode}); last log lines: ${log.replace(/\n/g, ' | ')}`,
    );
    return;
  }
  const uid = await podman('exec', name, 'id', '-u');
  if (container.runAsUser !== null && uid !== String(container.runAsUser))
    problem(`runs as uid ${uid}, runAsUser is ${container.runAsUser}`);
  if (container.readOnlyRootFilesystem) {
    if (!inspect.HostConfig.ReadonlyRootfs) problem('root file system is writable, readOnlyRootFilesystem is true');
    const wrote = await exec('podman', ['exec', name, 'sh', '-c', 'touch /app/.smoke || touch /tmp/.smoke']).then(
      () => true,
      () => false,
    );
    if (wrote) problem('could write under /app or /tmp');
  }

  const declared = new Set(Object.values(container.ports));
  const listening = await listeningPorts(name);
  for (const port of declared) if (!listening.has(port)) problem(`containerPort ${port} is declared, nothing listens on it`);
  for (const port of listening) if (!declared.has(port)) problem(`listens on port ${port}, which no containerPort declares`);

  for (const probe of container.probes) {
    const result = await waitForProbe(container, name, address, probe);
    if (!result.ok) problem(`${probe.kind} ${result.what} answered ${result.status ?? result.why}`);
    else say(`${where}: ${probe.kind} ${result.what} -> ${result.status ?? 'ok'}`);
  }
  say(`${where}: command, uid ${uid}, read-only root, ${given.size} variables, ports ${[...declared].join(',')} checked`);
}

try {
  await createSecret();
  for (const job of plan.jobs) await runJob(job);
  // A Job that failed leaves the processes without the users it makes: nothing more to learn.
  if (problems.length) throw new Error(problems.pop());
  const addresses = new Map();
  const started = [];
  for (const deployment of plan.deployments) {
    const { names, address } = await play(deployment, addresses);
    started.push(...names);
    writeFileSync(join(outDir, 'containers'), `${started.join('\n')}\n`);
    addresses.set(deployment.name, address);
    say(`${deployment.name}: pod ${address} (calls ${deployment.calls.join(', ') || 'no Service'})`);
    // Dependants are played once this pod is ready, as a Service would only then route to it.
    for (const [i, container] of deployment.containers.entries()) {
      const startup = container.probes.find((p) => p.kind === 'startupProbe');
      const readiness = container.probes.find((p) => p.kind === 'readinessProbe');
      for (const probe of [startup, readiness].filter(Boolean)) await waitForProbe(container, names[i], address, probe);
    }
    for (const [i, container] of deployment.containers.entries()) await checkContainer(deployment, container, names[i], address);
    if (problems.length) break;
  }
  writeFileSync(
    join(outDir, 'gateway-url'),
    `http://${addresses.get('gateway')}:${plan.deployments.find((d) => d.name === 'gateway').containers[0].ports.http}\n`,
  );
} catch (err) {
  problems.push(err.stderr?.trim() || err.message);
}
if (problems.length) {
  for (const p of problems) console.error(`kube: FAILED: ${p}`);
  process.exit(1);
}
say(`all ${plan.deployments.length} Deployments play and match their manifests`);
process.exit(0);
