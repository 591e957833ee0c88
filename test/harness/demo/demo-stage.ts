// The stage the action plays on in the demo and the end-to-end tests: a workspace holding
// the example bundle and runtime, the example module pushed to a real registry, and the
// GitHub stand-in with the repository and its pull requests. The clusters come from the
// local fleet (contexts fleet-1, fleet-2, fleet-3, as examples/runtime.cue names them).
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repositoryRoot } from '../support/go-binary.js';
import { exampleModule } from '../fleet/fleet-registry.js';
import { fakeSha, startGitHubStandIn, type GitHubStandIn } from '../github/index.js';
import { pushTimoniModule, startRegistry, type RegistryHandle } from '../registry/index.js';

export const DEMO_REPOSITORY = { owner: 'acme', name: 'shop-deploy' };

/** One edit of a pull request: `from` must occur exactly once in the file. */
export interface TextReplacement {
  from: string;
  to: string;
}

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
  /**
   * Changes the workspace's bundle.cue as a pull request's commit would (the workspace is
   * the checkout the action runs on); throws, naming the text, when an edit does not apply.
   */
  editBundle(replacements: TextReplacement[]): void;
  stop(): Promise<void>;
}

export async function stageDemo(kubeconfig: string): Promise<DemoStage> {
  const workdir = mkdtempSync(join(tmpdir(), 'timoni-fleet-workspace-'));
  for (const file of ['bundle.cue', 'runtime.cue']) cpSync(join(repositoryRoot, 'examples', file), join(workdir, file));

  const module = exampleModule();
  const registry = await startRegistry({ auth: 'anonymous' });
  const github = await startGitHubStandIn();
  try {
    const pushed = await pushTimoniModule({
      registry: registry.url,
      repository: module.repository,
      tag: module.version,
      moduleDir: module.moduleDir,
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
        // The stage's own identity records: other stages and tests reach the same API servers
        // under other runtime cluster names.
        'cluster-identity-record': `timoni-fleet-identity-${randomBytes(4).toString('hex')}`,
      },
      env: { [module.registryVariable]: registry.host },
      openPullRequest(number: number) {
        const headSha = fakeSha(`head-${number}`);
        const mergeCommitSha = fakeSha(`merge-${number}`);
        github.state.addPullRequest({ owner: DEMO_REPOSITORY.owner, repo: DEMO_REPOSITORY.name, number, headSha });
        return { number, headSha, mergeCommitSha };
      },
      editBundle(replacements: TextReplacement[]) {
        const path = join(workdir, 'bundle.cue');
        let text = readFileSync(path, 'utf8');
        for (const { from, to } of replacements) {
          const count = text.split(from).length - 1;
          if (count !== 1)
            throw new Error(
              `editing ${path}: ${JSON.stringify(from)} occurs ${count} times, expected once (was examples/bundle.cue changed?)`,
            );
          text = text.replace(from, () => to);
        }
        writeFileSync(path, text);
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
