import { generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CONFIG_VARIABLES as GATEWAY_VARIABLES,
  DEPLOYMENT_VARIABLES as GATEWAY_REQUIRED,
  loadConfig as loadGatewayConfig,
} from '@lms/gateway/config';
import {
  CONFIG_VARIABLES as LMS_VARIABLES,
  DEPLOYMENT_VARIABLES as LMS_REQUIRED,
  SECRET_VARIABLES as LMS_SECRETS,
  loadConfig as loadLmsConfig,
  NOTIFICATION_SECRET_VARIABLES,
} from '@lms/lms/config';
import { CLOSE_TIMEOUT_MS } from '@lms/server-kit';
import t from 'tap';
import { parseAllDocuments } from 'yaml';
import { type PartnerEntry, startGateway, startLms } from './helpers/services.js';

// CI runs this file once (not again in the PostgreSQL pass): manifests against the apps' settings; the backend the LMS runs on here is incidental.

// The Kubernetes manifests (deploy/kubernetes) have never run here (no cluster on these machines):
// as compose.test.ts does for docker-compose.yml, this test holds them against the code. What
// stays unverified: that a cluster accepts them (API versions, admission), that the images
// exist, that the Services and probes work on a real network.

const DIR = fileURLToPath(new URL('../../deploy/kubernetes/', import.meta.url));

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean }; configMapKeyRef?: { name: string; key: string } };
}
interface Probe {
  httpGet: { path: string; port: string | number };
  periodSeconds?: number;
  failureThreshold?: number;
  timeoutSeconds?: number;
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: Array<{ name: string; containerPort: number }>;
  env?: EnvVar[];
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}
interface PodSpec {
  containers: Container[];
  terminationGracePeriodSeconds?: number;
  restartPolicy?: string;
  volumes?: Array<{ name: string; configMap?: { name: string } }>;
}
interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  spec?: {
    replicas?: number;
    selector?: { matchLabels: Record<string, string> } | Record<string, string>;
    strategy?: { type: string; rollingUpdate?: { maxUnavailable: number; maxSurge: number } };
    template?: { metadata: { labels: Record<string, string> }; spec: PodSpec };
    ports?: Array<{ name: string; port: number; targetPort: string | number }>;
    maxUnavailable?: number;
  };
}

const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml'));
/** `# NAME: value` in a manifest: an optional setting, commented out; `uncommented` switches each on. */
const COMMENTED_SETTING = /^(\s*)# (?=[A-Z][A-Z0-9_]*: )/gm;
const load = (uncommented: boolean): Manifest[] =>
  files.flatMap((file) => {
    const text = readFileSync(join(DIR, file), 'utf8');
    return parseAllDocuments(uncommented ? text.replace(COMMENTED_SETTING, '$1') : text).map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
      return doc.toJS() as Manifest;
    });
  });
const manifests = load(false);
/** The same, with every optional setting of the ConfigMaps uncommented. */
const withOptional = load(true);
const find = (kind: string, name: string, from = manifests) => {
  const found = from.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`deploy/kubernetes has no ${kind} ${name}`);
  return found;
};

/** Which app an image runs, with the variables its config reads and those a deployment must set. */
const APPS = {
  'lms-service/lms': { name: 'lms', variables: LMS_VARIABLES, required: LMS_REQUIRED, load: loadLmsConfig },
  'lms-service/gateway': { name: 'gateway', variables: GATEWAY_VARIABLES, required: GATEWAY_REQUIRED, load: loadGatewayConfig },
} as const;
const appOf = (container: Container) => APPS[container.image.replace(/:[^/]*$/, '') as keyof typeof APPS];

/**
 * A container's environment as the pod gets it: the ConfigMaps of envFrom, then env (secrets as a
 * placeholder). The Secret holds the keys a pod cannot start without; `full`: every optional key too
 * (a key the Secret lacks leaves an `optional: true` reference's variable unset).
 */
function environment(container: Container, { full = false, from = manifests } = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (source.secretRef) throw new Error(`${container.name}: envFrom a Secret hides which variables it sets; name them in env`);
    Object.assign(env, find('ConfigMap', source.configMapRef!.name, from).data);
  }
  for (const variable of container.env ?? []) {
    const secret = variable.valueFrom?.secretKeyRef;
    if (secret?.optional && !full) continue;
    env[variable.name] = variable.value ?? (secret ? placeholderSecret(secret.key) : '');
  }
  return env;
}
/** What an operator puts in the Secret, for the config to parse. */
const issuerKeyPem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const placeholderSecret = (key: string) =>
  (
    ({
      DATABASE_URL: 'postgres://lms:secret@postgres:5432/lms',
      GATEWAY_SECRET: 'a-shared-secret-of-32-characters',
      CREDENTIAL_ISSUER_KEY: issuerKeyPem,
      SMTP_URL: 'smtps://lms%40example.org:secret@smtp.example.org:465',
      DKIM_PRIVATE_KEY: issuerKeyPem,
      WHATSAPP_PHONE_NUMBER_ID: '106540352242922',
      WHATSAPP_ACCESS_TOKEN: 'EAAG-a-system-user-token-0123456789',
      WHATSAPP_APP_SECRET: 'the-meta-app-secret-0123456789',
      WHATSAPP_VERIFY_TOKEN: 'the-webhook-verify-token-0123',
      NOTIFICATION_LINK_SECRET: 'an-unsubscribe-link-key-of-32-characters',
    }) as Record<string, string>
  )[key] ?? `placeholder-${key}`;

const deployments = manifests.filter((m) => m.kind === 'Deployment');
const containerOf = (name: string) => find('Deployment', name).spec!.template!.spec.containers[0]!;

t.test('every manifest is a kind this test knows; a Deployment per app, a migration Job', async (t) => {
  t.same([...new Set(manifests.map((m) => `${m.apiVersion} ${m.kind}`))].sort(), [
    'apps/v1 Deployment',
    'batch/v1 Job',
    'policy/v1 PodDisruptionBudget',
    'v1 ConfigMap',
    'v1 Service',
  ]);
  t.same(deployments.map((d) => appOf(d.spec!.template!.spec.containers[0]!)?.name).sort(), ['gateway', 'lms']);
});

t.test('each app gets only variables its config reads, every one a deployment must set, and values it accepts', async (t) => {
  for (const deployment of deployments) {
    const container = deployment.spec!.template!.spec.containers[0]!;
    const app = appOf(container);
    const env = environment(container);
    t.same(
      Object.keys(env).filter((v) => !app.variables.includes(v)),
      [],
      `${deployment.metadata.name}: every variable is one the ${app.name} config reads`,
    );
    t.same(
      app.required.filter((v) => !env[v]),
      [],
      `${deployment.metadata.name}: sets ${app.required.join(', ')}`,
    );
    t.doesNotThrow(() => app.load(env), `${deployment.metadata.name}: the ${app.name} config accepts the values`);
    const full = environment(find('Deployment', deployment.metadata.name, withOptional).spec!.template!.spec.containers[0]!, {
      full: true,
      from: withOptional,
    });
    t.same(
      Object.keys(full).filter((v) => !app.variables.includes(v)),
      [],
      `${deployment.metadata.name}: so is every optional one (commented settings, optional Secret keys)`,
    );
    t.doesNotThrow(() => app.load(full), `${deployment.metadata.name}: and accepts them all set`);
    t.equal(
      String(container.ports?.find((p) => p.name === 'http')?.containerPort),
      env.PORT,
      `${deployment.metadata.name}: the http port is the PORT it listens on`,
    );
    t.equal(
      String(container.ports?.find((p) => p.name === 'metrics')?.containerPort),
      env.METRICS_PORT,
      `${deployment.metadata.name}: the metrics port is METRICS_PORT`,
    );
    t.equal(env.METRICS_HOST, '0.0.0.0', `${deployment.metadata.name}: metrics on the pod's address, for Prometheus`);
  }
  t.equal(environment(containerOf('lms')).MIGRATE_ON_START, 'false', 'the LMS pods do not migrate: the Job does, once');
  t.equal(environment(containerOf('lms')).JOBS_WORKERS, 'on', 'the LMS pods run the job queue (some instance must)');
});

t.test('secrets come from the Secret, never a literal or a ConfigMap; the notifications carry theirs, optional', async (t) => {
  const secret = (variable: EnvVar) => variable.valueFrom?.secretKeyRef;
  for (const from of [manifests, withOptional]) {
    for (const map of from.filter((m) => m.kind === 'ConfigMap')) {
      const keys = Object.keys(map.data ?? {});
      t.same(
        keys.filter((k) => LMS_SECRETS.includes(k)),
        [],
        `ConfigMap ${map.metadata.name}${from === withOptional ? ' (its commented settings too)' : ''}: no secret`,
      );
    }
  }
  const containers = manifests.flatMap((m) => m.spec?.template?.spec.containers ?? []);
  for (const container of containers) {
    for (const variable of (container.env ?? []).filter((v) => LMS_SECRETS.includes(v.name))) {
      t.equal(variable.value, undefined, `${container.name} ${variable.name}: no literal value`);
      t.equal(secret(variable)?.key, variable.name, `${container.name} ${variable.name}: from the Secret's key of that name`);
    }
  }
  const lms = containerOf('lms').env ?? [];
  const optionalKeys = lms.filter((v) => secret(v)?.optional).map((v) => v.name);
  t.same(
    NOTIFICATION_SECRET_VARIABLES.filter((name) => !lms.some((v) => v.name === name && secret(v))),
    [],
    'the LMS pods get every notification secret from the Secret',
  );
  t.same(
    optionalKeys.filter((name) => LMS_REQUIRED.includes(name) || name === 'CREDENTIAL_ISSUER_KEY'),
    [],
    'what a deployment must set is never optional',
  );
  t.same(
    NOTIFICATION_SECRET_VARIABLES.filter((name) => !optionalKeys.includes(name)),
    [],
    'the notification secrets are optional: a Secret without them starts the pods, with those channels off',
  );
  t.ok(optionalKeys.includes('WHATSAPP_PHONE_NUMBER_ID'), "WhatsApp's number id beside its token (both or neither)");
});

t.test('probes: readiness on /readyz, liveness on /healthz, on the http port, answered by the running apps', async (t) => {
  const lms = await startLms(t);
  const gateway = await startGateway(t, []);
  const apps = { lms: lms.app, gateway };
  for (const deployment of deployments) {
    const container = deployment.spec!.template!.spec.containers[0]!;
    const app = apps[appOf(container).name];
    t.equal(container.readinessProbe?.httpGet.path, '/readyz', `${deployment.metadata.name}: readiness is /readyz`);
    t.equal(
      container.livenessProbe?.httpGet.path,
      '/healthz',
      `${deployment.metadata.name}: liveness is /healthz (a database outage restarts nothing)`,
    );
    for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe].filter((p) => p !== undefined)) {
      t.equal(probe.httpGet.port, 'http', `${deployment.metadata.name} ${probe.httpGet.path}: the http port`);
      t.equal((await app.inject(probe.httpGet.path)).statusCode, 200, `${deployment.metadata.name}: GET ${probe.httpGet.path} answers 200`);
    }
    app.lifecycle.startDraining();
    t.equal((await app.inject('/readyz')).statusCode, 503, `${deployment.metadata.name}: /readyz 503 once stopping`);
    t.equal(
      (await app.inject('/healthz')).statusCode,
      200,
      `${deployment.metadata.name}: /healthz still 200 (not restarted while it drains)`,
    );
  }
});

t.test('a stopping pod: out of the endpoints within its drain, and never killed before its requests end', async (t) => {
  for (const deployment of deployments) {
    const name = deployment.metadata.name;
    const pod = deployment.spec!.template!.spec;
    const container = pod.containers[0]!;
    const drainMs = Number(environment(container).SHUTDOWN_DRAIN_MS ?? 5_000);
    const readiness = container.readinessProbe!;
    const outMs = ((readiness.periodSeconds ?? 10) * (readiness.failureThreshold ?? 3) + (readiness.timeoutSeconds ?? 1)) * 1000;
    t.ok(outMs < drainMs, `${name}: readiness fails within ${outMs} ms (period x failures + timeout) < SHUTDOWN_DRAIN_MS ${drainMs}`);
    const preStop = container.lifecycle?.preStop?.exec?.command;
    t.equal(preStop?.[0], 'sleep', `${name}: preStop sleeps (the endpoints learn the pod is going while it still serves)`);
    const preStopMs = Number(preStop?.[1]) * 1000;
    t.ok(preStopMs > 0 && preStopMs < drainMs, `${name}: preStop ${preStopMs} ms, shorter than the drain that follows it`);
    const graceMs = (pod.terminationGracePeriodSeconds ?? 30) * 1000;
    if (appOf(container).name === 'lms') {
      const jobsStopMs = Number(environment(container).JOBS_STOP_SECONDS) * 1000;
      t.ok(
        jobsStopMs < CLOSE_TIMEOUT_MS,
        `${name}: JOBS_STOP_SECONDS ${jobsStopMs} ms < the ${CLOSE_TIMEOUT_MS} ms its close may take (the jobs are handed back)`,
      );
    }
    t.ok(
      graceMs > preStopMs + drainMs + CLOSE_TIMEOUT_MS,
      `${name}: terminationGracePeriodSeconds ${graceMs} ms > preStop + drain + ${CLOSE_TIMEOUT_MS} ms for requests in flight`,
    );
    t.same(
      deployment.spec!.strategy,
      { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      `${name}: a rollout never lowers capacity`,
    );
  }
});

t.test('Services and PodDisruptionBudgets select the pods of their Deployment', async (t) => {
  for (const deployment of deployments) {
    const name = deployment.metadata.name;
    const labels = deployment.spec!.template!.metadata.labels;
    const selects = (selector: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);
    t.ok(
      selects((deployment.spec!.selector as { matchLabels: Record<string, string> }).matchLabels),
      `${name}: the Deployment selects its own pods`,
    );
    const service = find('Service', name);
    t.ok(selects(service.spec!.selector as Record<string, string>), `Service ${name} selects them`);
    const container = deployment.spec!.template!.spec.containers[0]!;
    t.equal(service.spec!.ports![0]!.targetPort, 'http', `Service ${name}: to the http port`);
    t.equal(String(service.spec!.ports![0]!.port), environment(container).PORT, `Service ${name}: on the same port number`);
    const budget = find('PodDisruptionBudget', name);
    t.ok(
      selects((budget.spec!.selector as { matchLabels: Record<string, string> }).matchLabels),
      `PodDisruptionBudget ${name} selects them`,
    );
    t.ok(
      budget.spec!.maxUnavailable! < deployment.spec!.replicas!,
      `${name}: a disruption leaves ${deployment.spec!.replicas! - budget.spec!.maxUnavailable!} pods serving`,
    );
  }
});

t.test("the gateway: forwarded calls to the LMS Service, browsers to the partners' public lmsUrl", async (t) => {
  const gatewayEnv = environment(containerOf('gateway'));
  const upstream = new URL(gatewayEnv.LMS_UPSTREAM_URL!);
  const lmsService = find('Service', 'lms');
  t.equal(`${upstream.hostname}:${upstream.port}`, `lms:${lmsService.spec!.ports![0]!.port}`, 'LMS_UPSTREAM_URL is the lms Service');

  const pod = find('Deployment', 'gateway').spec!.template!.spec;
  const mount = containerOf('gateway').volumeMounts!.find((m) => gatewayEnv.PARTNERS_FILE!.startsWith(`${m.mountPath}/`))!;
  t.ok(mount, 'PARTNERS_FILE is in a mounted volume');
  const volume = pod.volumes!.find((v) => v.name === mount.name)!;
  const partnersMap = find('ConfigMap', volume.configMap!.name);
  const fileName = gatewayEnv.PARTNERS_FILE!.slice(mount.mountPath.length + 1);
  const content = partnersMap.data![fileName];
  t.ok(content, `the ConfigMap ${partnersMap.metadata.name} holds ${fileName}`);
  const { partners } = JSON.parse(content!) as { partners: PartnerEntry[] };
  const gateway = await startGateway(t, partners);
  t.equal(gateway.partners.size, partners.length, 'the gateway accepts the partners file');
  const lmsPublicUrl = environment(containerOf('lms')).PUBLIC_URL;
  for (const partner of partners) t.equal(partner.lmsUrl, lmsPublicUrl, `${partner.iss}: lmsUrl is the LMS's PUBLIC_URL`);
});

t.test('the migration Job: the LMS image running lms-admin db migrate with the database, once', async (t) => {
  const job = find('Job', 'lms-migrate');
  const pod = job.spec!.template!.spec;
  const container = pod.containers[0]!;
  t.equal(container.image, containerOf('lms').image, 'the same image as the LMS pods');
  t.same(container.command, ['lms-admin', 'db', 'migrate']);
  t.match(
    readFileSync(fileURLToPath(new URL('../../apps/lms/Dockerfile', import.meta.url)), 'utf8'),
    '/usr/local/bin/lms-admin',
    'the image has lms-admin',
  );
  t.same(Object.keys(environment(container)), ['DATABASE_URL'], 'it gets the database, nothing else');
  t.equal(pod.restartPolicy, 'Never');
  const secrets = new Set(
    manifests.flatMap((m) =>
      (m.spec?.template?.spec.containers ?? []).flatMap((c) => (c.env ?? []).map((e) => e.valueFrom?.secretKeyRef?.name)),
    ),
  );
  secrets.delete(undefined);
  t.same([...secrets], ['lms-secrets'], 'one Secret for the LMS, the gateway and the Job');
});
