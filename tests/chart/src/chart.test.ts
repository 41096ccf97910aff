import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildChartTools, REPO_ROOT, type ChartTools } from '@voice/dev';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

/**
 * The Helm chart (deploy/helm/voice), rendered with its default values and the production example: it
 * lints strictly, its manifests validate against Kubernetes' own schemas (vendored in deploy/helm/schemas,
 * since kubeconform's default download is out of reach), and they hold what a cluster operator relies on.
 */

const CHART = join(REPO_ROOT, 'deploy', 'helm', 'voice');
const SCHEMAS = join(REPO_ROOT, 'deploy', 'helm', 'schemas');
const KUBERNETES_VERSION = '1.31.4';
const VALUE_SETS = {
  default: [] as string[],
  production: ['-f', join(CHART, 'values-production.yaml')],
};
/** Settings whose values are secrets: never in a manifest's env `value`, a ConfigMap, or a values file. */
const SECRET_NAME = /DATABASE_URL|REDIS_URL|SMTP_URL|SECRET|TOKEN|PASSWORD|_KEY\b|_KEY_|_SID$/;

// What the test reads of the manifests.
interface Probe {
  httpGet?: { path: string; port: string | number };
  tcpSocket?: { port: string | number };
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Container {
  name: string;
  image: string;
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports?: { name: string; containerPort: number }[];
  resources?: { requests?: { cpu?: string; memory?: string }; limits?: { memory?: string } };
  securityContext?: {
    runAsNonRoot?: boolean;
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
  };
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
}
interface PodSpec {
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  terminationGracePeriodSeconds?: number;
  containers: Container[];
}
interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: {
    template?: { metadata?: { labels?: Record<string, string> }; spec: PodSpec };
    selector?: { matchLabels?: Record<string, string> } & Record<string, string>;
    scaleTargetRef?: { kind: string; name: string };
    metrics?: { type: string; pods?: { metric: { name: string }; target: { averageValue: string } } }[];
    ports?: { name: string; appProtocol?: string; targetPort: string | number }[];
    rules?: {
      http: { paths: { path: string; backend: { service: { name: string; port: { name: string } } } }[] };
    }[];
  };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

let tools: ChartTools;
const helmHome = mkdtempSync(join(tmpdir(), 'voice-helm-'));

function helm(args: string[]) {
  return spawnSync(tools.helm, args, {
    encoding: 'utf8',
    // No repository configuration or cache of the machine's user is read or written.
    env: {
      ...process.env,
      HELM_CACHE_HOME: join(helmHome, 'cache'),
      HELM_CONFIG_HOME: join(helmHome, 'config'),
      HELM_DATA_HOME: join(helmHome, 'data'),
    },
  });
}

function render(values: string[]): { text: string; manifests: Manifest[] } {
  const result = helm(['template', 'voice', CHART, '--kube-version', KUBERNETES_VERSION, ...values]);
  expect(result.status, result.stderr).toBe(0);
  const manifests = parseAllDocuments(result.stdout)
    .map((document) => document.toJS() as Manifest | null)
    .filter((manifest): manifest is Manifest => manifest !== null);
  return { text: result.stdout, manifests };
}

const ofKind = (manifests: Manifest[], kind: string) =>
  manifests.filter((manifest) => manifest.kind === kind);
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([key, value]) => labels[key] === value);

beforeAll(() => {
  tools = buildChartTools((message) => console.log(`[chart] ${message}`));
});

describe('the Helm chart', () => {
  it('lints with --strict, with its default values and the production example', () => {
    for (const values of Object.values(VALUE_SETS)) {
      const result = helm(['lint', '--strict', CHART, '--kube-version', KUBERNETES_VERSION, ...values]);
      expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
      expect(result.stdout).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    }
  });

  describe.each(Object.entries(VALUE_SETS))('rendered with the %s values', (name, values) => {
    it('validates against the schemas of Kubernetes itself (kubeconform, strict, no kind unknown)', () => {
      const { text, manifests } = render(values);
      const kinds = new Set(manifests.map((manifest) => manifest.kind));
      const vendored = new Set(readdirSync(SCHEMAS).map((file) => file.split('-')[0]));
      expect([...kinds].filter((kind) => !vendored.has(kind.toLowerCase()))).toEqual([]);
      const result = spawnSync(
        tools.kubeconform,
        [
          '-strict',
          '-summary',
          '-output',
          'json',
          '-kubernetes-version',
          KUBERNETES_VERSION,
          '-schema-location',
          join(SCHEMAS, '{{ .ResourceKind }}{{ .KindSuffix }}.json'),
          '-',
        ],
        { input: text, encoding: 'utf8' },
      );
      expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
      const { summary } = JSON.parse(result.stdout) as {
        summary: { valid: number; invalid: number; errors: number; skipped: number };
      };
      expect(summary).toEqual({ valid: manifests.length, invalid: 0, errors: 0, skipped: 0 });
    });

    it('runs every container as non-root, read-only, with resources; every service with probes on /healthz and a drain', () => {
      const { manifests } = render(values);
      const deployments = ofKind(manifests, 'Deployment');
      expect(
        deployments.map((deployment) => deployment.metadata.labels?.['app.kubernetes.io/component']),
      ).toEqual(['api', 'media', 'worker']);
      for (const workload of [...deployments, ...ofKind(manifests, 'Job')]) {
        const pod = workload.spec!.template!.spec;
        expect(pod.securityContext?.runAsNonRoot, workload.metadata.name).toBe(true);
        expect(pod.securityContext?.runAsUser).toBeGreaterThan(0);
        for (const container of pod.containers) {
          const where = `${workload.metadata.name}/${container.name}`;
          expect(container.securityContext, where).toMatchObject({
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
          });
          expect(container.resources?.requests?.cpu, where).toBeTruthy();
          expect(container.resources?.requests?.memory, where).toBeTruthy();
          expect(container.resources?.limits?.memory, where).toBeTruthy();
          expect(container.image, where).toMatch(/^[\w./-]+-(api|worker|media|cli):[\w.-]+$/);
        }
      }
      for (const deployment of deployments) {
        const pod = deployment.spec!.template!.spec;
        const [container] = pod.containers;
        const port = container!.ports![0]!.name;
        expect(container!.readinessProbe?.httpGet, deployment.metadata.name).toEqual({
          path: '/healthz',
          port,
        });
        expect(container!.startupProbe?.httpGet, deployment.metadata.name).toEqual({
          path: '/healthz',
          port,
        });
        expect(container!.livenessProbe, deployment.metadata.name).toBeTruthy();
        // The pod leaves its Service (preStop) before SIGTERM starts the service's drain, and the grace
        // period covers both.
        const preStop = Number(container!.lifecycle?.preStop?.exec?.command[1] ?? 0);
        expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(preStop + 30);
      }
    });

    it('gives every Deployment a disruption budget and an autoscaler that select it', () => {
      const { manifests } = render(values);
      for (const deployment of ofKind(manifests, 'Deployment')) {
        const labels = deployment.spec!.template!.metadata!.labels!;
        const budgets = ofKind(manifests, 'PodDisruptionBudget').filter((pdb) =>
          matches(pdb.spec!.selector!.matchLabels!, labels),
        );
        expect(budgets, deployment.metadata.name).toHaveLength(1);
        const scalers = ofKind(manifests, 'HorizontalPodAutoscaler').filter(
          (hpa) =>
            hpa.spec!.scaleTargetRef!.kind === 'Deployment' &&
            hpa.spec!.scaleTargetRef!.name === deployment.metadata.name,
        );
        expect(scalers, deployment.metadata.name).toHaveLength(1);
      }
    });

    it('scales the media servers on their own load where asked (the production example), on CPU always', () => {
      const { manifests } = render(values);
      const media = ofKind(manifests, 'HorizontalPodAutoscaler').find((hpa) =>
        hpa.metadata.name.endsWith('-media'),
      )!;
      const pods = media.spec!.metrics!.filter((metric) => metric.type === 'Pods');
      expect(media.spec!.metrics!.some((metric) => metric.type === 'Resource')).toBe(true);
      expect(pods).toEqual(
        name === 'production'
          ? [
              {
                type: 'Pods',
                pods: {
                  metric: { name: 'media_load_ratio' },
                  target: { type: 'AverageValue', averageValue: '600m' },
                },
              },
            ]
          : [],
      );
    });

    it('carries the media WebSockets: a ws Service, /media routed to it, proxy timeouts of a whole call', () => {
      const { manifests } = render(values);
      const media = ofKind(manifests, 'Service').find((service) => service.metadata.name.endsWith('-media'))!;
      expect(media.spec!.ports).toEqual([
        expect.objectContaining({ appProtocol: 'kubernetes.io/ws', targetPort: 'ws' }),
      ]);
      const [ingress] = ofKind(manifests, 'Ingress');
      const paths = ingress!.spec!.rules![0]!.http.paths;
      expect(paths.find((path) => path.path === '/media')?.backend.service).toEqual({
        name: media.metadata.name,
        port: { name: 'ws' },
      });
      expect(
        Number(ingress!.metadata.annotations!['nginx.ingress.kubernetes.io/proxy-read-timeout']),
      ).toBeGreaterThanOrEqual(3600);
      const [settings] = ofKind(manifests, 'ConfigMap');
      expect(settings!.data!.MEDIA_PUBLIC_URL).toMatch(/^wss:\/\/[^/]+\/media\/twilio$/);
    });

    it('writes no secret value inline: secrets come from the existing Secret by reference', () => {
      const { manifests } = render(values);
      expect(ofKind(manifests, 'Secret')).toEqual([]);
      for (const settings of ofKind(manifests, 'ConfigMap'))
        expect(Object.keys(settings.data ?? {}).filter((name) => SECRET_NAME.test(name))).toEqual([]);
      const references: string[] = [];
      for (const workload of [...ofKind(manifests, 'Deployment'), ...ofKind(manifests, 'Job')]) {
        for (const container of workload.spec!.template!.spec.containers) {
          for (const variable of container.env ?? []) {
            if (variable.value !== undefined)
              expect(SECRET_NAME.test(variable.name), `${workload.metadata.name}: ${variable.name}`).toBe(
                false,
              );
            if (variable.valueFrom?.secretKeyRef) references.push(variable.valueFrom.secretKeyRef.name);
          }
        }
      }
      expect(new Set(references)).toEqual(new Set(['voice-secrets']));
    });
  });

  it('refuses a secret given as a plain setting, with the reason', () => {
    const result = helm([
      'template',
      'voice',
      CHART,
      '--kube-version',
      KUBERNETES_VERSION,
      '--set',
      'env.OPENAI_API_KEY=sk-live-123',
    ]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/env\.OPENAI_API_KEY is a secret: put it in the Secret voice-secrets/);
  });
});
