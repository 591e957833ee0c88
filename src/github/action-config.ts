// The action's inputs, read and checked once: what to evaluate, where the clusters are,
// and how to diff or apply. Secret inputs (registry credentials, the token) are
// registered for masking before anything else reads them; kubeconfig credentials are
// registered by the kubeconfig loader.
import { getBooleanInput, getChoiceInput, getInput, getListInput, InputError, type Environment } from './action-inputs.js';
import { parseDuration } from './duration.js';
import type { ModeInput } from './event-context.js';

export interface ActionConfig {
  bundleFiles: string[];
  runtimeFiles: string[];
  kubeconfigs: string[];
  mode: ModeInput;
  runtimeGroup: string;
  runtimeCluster: string;
  runtimeFromEnv: boolean;
  githubToken: string;
  comment: boolean;
  wait: boolean;
  timeoutMs: number;
  prune: boolean;
  force: boolean;
  overwriteOwnership: boolean;
  registryCreds: string;
  concurrency: number;
  workingDirectory: string;
}

/**
 * The kubeconfigs given in the `kubeconfig` input: YAML (several documents merge), or one
 * or more base64-encoded kubeconfigs separated by whitespace.
 */
function kubeconfigInputs(env: Environment): string[] {
  const raw = getInput(env, 'kubeconfig');
  if (raw === '') return [];
  if (/^[A-Za-z0-9+/=\s]+$/.test(raw)) return raw.split(/\s+/).filter(Boolean);
  return [raw];
}

export function readActionConfig(env: Environment, mask: (secret: string) => void): ActionConfig {
  // The credentials inside the kubeconfigs are registered when they are loaded; masking the
  // whole text would hide every structural line (`apiVersion: v1`) in every report.
  const kubeconfigs = kubeconfigInputs(env);
  const githubToken = getInput(env, 'github-token');
  if (githubToken) mask(githubToken);
  const registryCreds = getInput(env, 'registry-creds');
  if (registryCreds) {
    mask(registryCreds);
    const colon = registryCreds.indexOf(':');
    if (colon >= 0) mask(registryCreds.slice(colon + 1));
  }

  const bundleFiles = getListInput(env, 'bundle');
  if (bundleFiles.length === 0) throw new InputError('bundle', 'is required: name one or more bundle files');
  const timeoutText = getInput(env, 'timeout') || '5m';
  const timeoutMs = parseDuration(timeoutText);
  if (timeoutMs === undefined) throw new InputError('timeout', `must be a duration such as 5m or 90s, not "${timeoutText}"`);
  const concurrencyText = getInput(env, 'concurrency') || '4';
  const concurrency = Number(concurrencyText);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new InputError('concurrency', `must be a whole number of clusters, 1 or more, not "${concurrencyText}"`);

  return {
    bundleFiles,
    runtimeFiles: getListInput(env, 'runtime'),
    kubeconfigs,
    mode: getChoiceInput(env, 'mode', ['auto', 'diff', 'apply'] as const, 'auto'),
    runtimeGroup: getInput(env, 'runtime-group') || '*',
    runtimeCluster: getInput(env, 'runtime-cluster') || '*',
    runtimeFromEnv: getBooleanInput(env, 'runtime-from-env', false),
    githubToken,
    comment: getBooleanInput(env, 'comment', true),
    wait: getBooleanInput(env, 'wait', true),
    timeoutMs,
    prune: getBooleanInput(env, 'prune', true),
    force: getBooleanInput(env, 'force', false),
    overwriteOwnership: getBooleanInput(env, 'overwrite-ownership', false),
    registryCreds,
    concurrency,
    workingDirectory: getInput(env, 'working-directory') || '.',
  };
}
