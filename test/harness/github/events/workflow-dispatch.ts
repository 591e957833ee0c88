// `workflow_dispatch` webhook payloads: a manual run with the action's inputs
// (cluster-group, cluster, mode) as strings, as GitHub sends them.
import type { GitHubEvent } from '../runner/github-context.js';
import {
  DEFAULT_URLS,
  type PayloadUrls,
  type RepositoryRef,
  repositoryPayload,
  repositoryRef,
  userPayload,
} from './payload-objects.js';

export interface WorkflowDispatchEventSpec {
  repository: RepositoryRef | string;
  /** Full ref the run is on (default: the default branch). */
  ref?: string;
  inputs: { 'cluster-group'?: string; cluster?: string; mode?: 'diff' | 'apply' | string } & Record<
    string,
    string | undefined
  >;
  sender?: string;
  workflow?: string;
  urls?: PayloadUrls;
}

export function workflowDispatchEvent(spec: WorkflowDispatchEventSpec): GitHubEvent {
  const urls = spec.urls ?? DEFAULT_URLS;
  const repo = repositoryRef(spec.repository);
  const inputs: Record<string, string> = {};
  for (const [name, value] of Object.entries(spec.inputs)) if (value !== undefined) inputs[name] = value;
  const ref = spec.ref ?? `refs/heads/${repo.defaultBranch ?? 'main'}`;
  if (!ref.startsWith('refs/'))
    throw new Error(`workflowDispatchEvent: ref '${ref}' must be a full ref (refs/heads/...)`);
  const sender = spec.sender ?? 'octocat';
  return {
    name: 'workflow_dispatch',
    payload: {
      inputs,
      ref,
      repository: repositoryPayload(repo, urls),
      sender: userPayload(sender, urls),
      workflow: spec.workflow ?? '.github/workflows/fleet.yml',
    },
  };
}
