// The stage the action plays on in the demo and the end-to-end tests: a workspace holding
// the example bundle and runtime, the example module pushed to a real registry, and the
// GitHub stand-in with the repository and a pull request. The clusters come from the
// local fleet (contexts fleet-1, fleet-2, fleet-3, as examples/runtime.cue names them).
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repositoryRoot } from '../support/go-binary.js';
import { fakeSha, startGitHubStandIn, type GitHubStandIn } from '../github/index.js';
import { pushTimoniModule, startRegistry, type RegistryHandle } from '../registry/index.js';

export const DEMO_REPOSITORY = { owner: 'acme', name: 'shop-deploy' };
export const MODULE_VERSION = '1.4.0';

export interface DemoStage {
  workdir: string;
  registry: RegistryHandle;
  github: GitHubStandIn;
  kubeconfig: string;
  moduleDigest: string;
  /** The action's inputs for this stage (a workflow's `with:`). */
  inputs: Record<string, string>;
  /** The step's `env:` (the registry address for the bundle's runtime attribute). */
  env: Record<string, string>;
  /** Adds a pull request to the stand-in and returns its number and head commit. */
  openPullRequest(number: number): { number: number; headSha: string; mergeCommitSha: string };
  stop(): Promise<void>;
}

export async function stageDemo(kubeconfig: string): Promise<DemoStage> {
  const workdir = mkdtempSync(join(tmpdir(), 'timoni-fleet-workspace-'));
  for (const file of ['bundle.cue', 'runtime.cue']) cpSync(join(repositoryRoot, 'examples', file), join(workdir, file));

  const registry = await startRegistry({ auth: 'anonymous' });
  const github = await startGitHubStandIn();
  try {
    const pushed = await pushTimoniModule({
      registry: registry.url,
      repository: 'modules/webapp',
      tag: MODULE_VERSION,
      moduleDir: join(repositoryRoot, 'examples', 'modules', 'webapp'),
    });
    github.state.addRepository({ owner: DEMO_REPOSITORY.owner, name: DEMO_REPOSITORY.name, defaultBranch: 'main' });
    return {
      workdir,
      registry,
      github,
      kubeconfig,
      moduleDigest: pushed.digest,
      inputs: {
        bundle: 'bundle.cue',
        runtime: 'runtime.cue',
        kubeconfig,
        'runtime-from-env': 'true',
        timeout: '60s',
      },
      env: { DEMO_REGISTRY: registry.host },
      openPullRequest(number: number) {
        const headSha = fakeSha(`head-${number}`);
        const mergeCommitSha = fakeSha(`merge-${number}`);
        github.state.addPullRequest({ owner: DEMO_REPOSITORY.owner, repo: DEMO_REPOSITORY.name, number, headSha });
        return { number, headSha, mergeCommitSha };
      },
      async stop() {
        await Promise.allSettled([registry.stop(), github.stop()]);
        rmSync(workdir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await Promise.allSettled([registry.stop(), github.stop()]);
    throw error;
  }
}
