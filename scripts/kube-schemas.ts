// `tsx scripts/kube-schemas.ts` writes the JSON schemas kubeconform checks the Helm chart against, into
// deploy/helm/schemas/, one per kind the chart renders. kubeconform fetches its schemas from the internet by
// default; these are generated the same way (standalone, strict) from the Kubernetes OpenAPI document that
// the k8s.io/kubernetes Go module carries, fetched through the Go module proxy. Run it again after changing
// KUBERNETES_VERSION or using a new kind in the chart, and commit the result.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@voice/dev';

export const KUBERNETES_VERSION = 'v1.31.4';

/** The kinds the chart renders, by their OpenAPI definition. */
const KINDS = [
  'io.k8s.api.apps.v1.Deployment',
  'io.k8s.api.batch.v1.Job',
  'io.k8s.api.core.v1.ConfigMap',
  'io.k8s.api.core.v1.Secret',
  'io.k8s.api.core.v1.Service',
  'io.k8s.api.core.v1.ServiceAccount',
  'io.k8s.api.core.v1.PersistentVolumeClaim',
  'io.k8s.api.networking.v1.Ingress',
  'io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler',
  'io.k8s.api.policy.v1.PodDisruptionBudget',
];

type Schema = { [key: string]: unknown };
interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

const go = process.env.GO ?? 'go';
const downloaded = spawnSync(go, ['mod', 'download', '-json', `k8s.io/kubernetes@${KUBERNETES_VERSION}`], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
if (downloaded.status !== 0)
  throw new Error(`go mod download k8s.io/kubernetes@${KUBERNETES_VERSION} failed`);
const { Dir } = JSON.parse(downloaded.stdout) as { Dir: string };
const swagger = JSON.parse(readFileSync(join(Dir, 'api', 'openapi-spec', 'swagger.json'), 'utf8')) as {
  definitions: Record<string, Schema>;
};

/** A definition with its references inlined; objects closed to unknown fields (kubeconform's strict schemas). */
function standalone(schema: unknown, seen: string[]): unknown {
  if (Array.isArray(schema)) return schema.map((item) => standalone(item, seen));
  if (typeof schema !== 'object' || schema === null) return schema;
  const source = schema as Schema;
  if (typeof source.$ref === 'string') {
    const name = source.$ref.replace('#/definitions/', '');
    // Recursive types (JSONSchemaProps) do not occur in the kinds above; refuse rather than loop.
    if (seen.includes(name)) throw new Error(`recursive definition ${name}`);
    return standalone(swagger.definitions[name], [...seen, name]);
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === 'x-kubernetes-group-version-kind' || key === 'description') continue;
    out[key] =
      key === 'properties' ? mapValues(value as Schema, (v) => standalone(v, seen)) : standalone(value, seen);
  }
  if (out.format === 'int-or-string') {
    delete out.format;
    delete out.type;
    out.oneOf = [{ type: 'string' }, { type: 'integer' }];
  }
  if (seen.at(-1) === 'io.k8s.apimachinery.pkg.api.resource.Quantity' && out.type === 'string') {
    delete out.type;
    out.oneOf = [{ type: 'string' }, { type: 'number' }];
  }
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

function mapValues(object: Schema, map: (value: unknown) => unknown): Schema {
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, map(value)]));
}

/** kubeconform's file name for a kind: `{kind}-{group's first label}-{version}`, or `{kind}-{version}` in core. */
function fileName({ group, version, kind }: GroupVersionKind): string {
  return `${[kind, group.split('.')[0], version].filter(Boolean).join('-').toLowerCase()}.json`;
}

const outDir = join(REPO_ROOT, 'deploy', 'helm', 'schemas');
mkdirSync(outDir, { recursive: true });
for (const name of KINDS) {
  const definition = swagger.definitions[name];
  if (!definition) throw new Error(`no definition ${name} in Kubernetes ${KUBERNETES_VERSION}`);
  const [gvk] = definition['x-kubernetes-group-version-kind'] as GroupVersionKind[];
  const schema = { $schema: 'http://json-schema.org/schema#', ...(standalone(definition, [name]) as Schema) };
  writeFileSync(join(outDir, fileName(gvk!)), `${JSON.stringify(schema)}\n`);
  console.log(`${fileName(gvk!)} (${gvk!.kind}, Kubernetes ${KUBERNETES_VERSION})`);
}
