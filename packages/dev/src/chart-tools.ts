import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CACHE_DIR } from './paths';
import { runGo } from './temporal-server';

/**
 * The tools that check the Helm chart (deploy/helm/voice): helm (lint, template) and kubeconform
 * (the rendered manifests against Kubernetes' schemas), built from the Go module proxy into the tools' cache (paths.ts) on
 * first use (a few minutes, once per machine), like the Temporal server.
 */

export const HELM_VERSION = 'v3.19.5';
export const KUBECONFORM_VERSION = 'v0.7.0';
const BIN_DIR = join(
  CACHE_DIR,
  'chart-tools',
  `helm-${HELM_VERSION}-kubeconform-${KUBECONFORM_VERSION}`,
  'bin',
);

export interface ChartTools {
  helm: string;
  kubeconform: string;
}

export function buildChartTools(log: (message: string) => void = () => {}): ChartTools {
  const tools = { helm: join(BIN_DIR, 'helm'), kubeconform: join(BIN_DIR, 'kubeconform') };
  if (existsSync(tools.helm) && existsSync(tools.kubeconform)) return tools;
  log(`building helm ${HELM_VERSION} and kubeconform ${KUBECONFORM_VERSION} (first run only)`);
  mkdirSync(BIN_DIR, { recursive: true });
  const started = Date.now();
  // One module per `go install`.
  for (const tool of [
    `helm.sh/helm/v3/cmd/helm@${HELM_VERSION}`,
    `github.com/yannh/kubeconform/cmd/kubeconform@${KUBECONFORM_VERSION}`,
  ]) {
    const built = runGo('helm and kubeconform', ['install', tool], { GOBIN: BIN_DIR, CGO_ENABLED: '0' });
    if (built.status !== 0) throw new Error(`go install ${tool} failed`);
  }
  log(`built in ${Math.round((Date.now() - started) / 1000)} s`);
  return tools;
}
