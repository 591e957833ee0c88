// End to end, as an attacker would try it: a pull request's author controls bundle.cue,
// runtime.cue and local modules, and the action posts the diff. Each attack runs
// `node dist/index.js` through the runner harness against the local fleet, and checks that
// a sentinel secret appears in none of the comment, the summary, the outputs or the log (the
// lines a runner shows, `::stop-commands::` handled as the runner does), and that what is
// refused fails with an error naming the file or input.
import { cpSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { clusterClient } from '../harness/fleet/test-context.js';
import {
  assertNoSecretLeak,
  pullRequestEvent,
  runAction,
  workflowDispatchEvent,
  type ActionRun,
} from '../harness/github/index.js';
import { REPO_ROOT } from '../harness/github/runner/node-runtime.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const currentStage = useDemoStage('sec');
let stage: DemoStage;
beforeAll(() => {
  stage = currentStage();
});

function file(name: string, body: string): string {
  const path = join(stage.workdir, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, body);
  return name;
}

function run(
  event: Parameters<typeof runAction>[0]['event'],
  inputs: Record<string, string>,
  env: Record<string, string> = {},
): Promise<ActionRun> {
  return runAction({
    event,
    githubApiUrl: stage.github.url,
    token: stage.github.token,
    workdir: stage.workdir,
    inputs: { ...stage.inputs, ...inputs },
    env: { ...stage.env, ...env },
    timeoutMs: 110_000,
    keepTemp: true,
  });
}

let pullRequests = 100;
function openedEvent(): { event: ReturnType<typeof pullRequestEvent>; number: number } {
  const pr = stage.openPullRequest(pullRequests++);
  return {
    event: pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
    number: pr.number,
  };
}

const comments = (number: number) =>
  stage.github.state.comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, number).map((c) => c.body);

const moduleBlock = `module: {url: "oci://\\(_registry)/modules/webapp", version: "1.4.0"}`;
const header = `_registry: string @timoni(runtime:string:DEMO_REGISTRY)
	apiVersion: "v1alpha1"`;

/** A one-instance bundle whose ConfigMap message is the given CUE expression. */
function messageBundle(name: string, fields: string, message: string, imports = ''): string {
  return file(
    `${name}.cue`,
    `${imports}
bundle: {
	${header}
	${fields}
	name: "${name}"
	instances: web: {
		${moduleBlock}
		namespace: "sec"
		values: message: ${message}
	}
}
`,
  );
}

const errorMessages = (result: ActionRun) =>
  result.commands
    .filter((c) => c.command === 'error')
    .map((c) => c.message)
    .join('\n');

describe('runtime values from cluster Secrets', () => {
  const sentinel = 'zq7-sentinel-cluster-s3cret';
  const forms = [
    sentinel,
    sentinel.toUpperCase(),
    Buffer.from(sentinel).toString('hex'),
    Buffer.from(sentinel).toString('base64'),
  ];
  let runtime: string;

  beforeAll(async () => {
    for (const index of [0, 1, 2]) {
      const client = clusterClient(index);
      await client.apply(
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'sec-src' } },
        { fieldManager: 'test', force: true },
      );
      await client.apply(
        {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'token', namespace: 'sec-src' },
          data: { value: Buffer.from(sentinel).toString('base64') },
        },
        { fieldManager: 'test', force: true },
      );
    }
    runtime = file(
      'sec-runtime.cue',
      `runtime: {
	apiVersion: "v1alpha1"
	name:       "sec"
	clusters: {
		"staging-1": {group: "staging", kubeContext: "fleet-1"}
		"production-eu": {group: "production", kubeContext: "fleet-2"}
		"production-us": {group: "production", kubeContext: "fleet-3"}
	}
	values: [{query: "k8s:v1:Secret:sec-src:token", for: {"STOLEN": "obj.data.value"}}]
}
`,
    );
  });

  it('refuses a Secret query on a pull request unless the workflow opts in, naming the input', async () => {
    const bundle = messageBundle('sec-plain', '_s: string @timoni(runtime:string:STOLEN)', '_s');
    const { event, number } = openedEvent();
    const result = await run(event, { bundle, runtime });
    expect(result.exitCode).toBe(1);
    expect(errorMessages(result)).toContain(
      'runtime value query "k8s:v1:Secret:sec-src:token": reads a Secret, which is refused on pull requests',
    );
    expect(errorMessages(result)).toContain('secret-queries-on-pull-request: true');
    assertNoSecretLeak(result, forms, comments(number));
  });

  it('masks the value and its cheap transforms everywhere when allowed: upper case, hex, base64, as an instance name', async () => {
    const bundle = file(
      'sec-transforms.cue',
      `import (
	"strings"
	"encoding/hex"
	"encoding/base64"
)

bundle: {
	${header}
	_s: string @timoni(runtime:string:STOLEN)
	name: "sec-transforms"
	instances: {
		web: {
			${moduleBlock}
			namespace: "sec"
			values: message: "upper=\\(strings.ToUpper(_s)) hex=\\(hex.Encode(_s)) b64=\\(base64.Encode(null, _s))"
		}
		"\\(_s)": {
			${moduleBlock}
			namespace: "sec"
		}
	}
}
`,
    );
    const { event, number } = openedEvent();
    const result = await run(event, { bundle, runtime, 'secret-queries-on-pull-request': 'true' });
    expect(result.exitCode, result.log).toBe(0);
    const posted = comments(number);
    expect(posted).toHaveLength(1);
    expect(posted[0]).toContain('upper=***');
    for (const form of forms) expect(result.masked).toContain(form);
    const changesFile = result.outputs['changes-file'] ?? '';
    expect(changesFile).not.toBe('');
    assertNoSecretLeak(result, forms, posted);
  });
});

describe('the environment', () => {
  it('never offers the job credentials to runtime-from-env, offers only runtime-env names, and never masks author-controlled text', async () => {
    const runnerToken = 'zq7-sentinel-runtime-t0ken';
    const bundle = messageBundle(
      'sec-env',
      `_runner: *"absent" | string @timoni(runtime:string:ACTIONS_RUNTIME_TOKEN)
	_gh: *"absent" | string @timoni(runtime:string:INPUT_GITHUB-TOKEN)
	_ref: *"absent" | string @timoni(runtime:string:GITHUB_HEAD_REF)`,
      '"runner=\\(_runner) gh=\\(_gh) image: \\(_ref):6.6.6"',
    );
    const { event, number } = openedEvent();
    const result = await run(
      event,
      { bundle },
      { ACTIONS_RUNTIME_TOKEN: runnerToken, GITHUB_HEAD_REF: 'evil.example/backdoor' },
    );
    expect(result.exitCode, result.log).toBe(0);
    const [body] = comments(number);
    // runtime-from-env: neither the runner's token nor the action's own input, and the head ref only when listed.
    expect(body).toContain('runner=absent gh=absent image: absent:6.6.6');
    assertNoSecretLeak(result, [runnerToken, stage.github.token], comments(number));

    const listed = openedEvent();
    const allowListed = await run(
      listed.event,
      { bundle, 'runtime-from-env': 'false', 'runtime-env': 'GITHUB_HEAD_REF\nDEMO_REGISTRY' },
      { ACTIONS_RUNTIME_TOKEN: runnerToken, GITHUB_HEAD_REF: 'evil.example/backdoor' },
    );
    expect(allowListed.exitCode, allowListed.log).toBe(0);
    const [shown] = comments(listed.number);
    // The reviewer sees the branch name the author chose: it is not a secret and never masked.
    expect(shown).toContain('image: evil.example/backdoor:6.6.6');
    expect(allowListed.masked).not.toContain('evil.example/backdoor');

    const refused = await run(openedEvent().event, { bundle, 'runtime-env': 'INPUT_GITHUB-TOKEN' });
    expect(refused.exitCode).toBe(1);
    expect(errorMessages(refused)).toContain('"runtime-env": "INPUT_GITHUB-TOKEN" is not an environment variable name');
  });
});

describe('environment values that hold a secret', () => {
  const dbPassword = 'zq7-sentinel-db-passw0rd';
  /** Every other character of the text, spaced out: what masking cannot recognise. */
  const spaced = (text: string) => text.split('').join(' ');
  /** The first client key of the kubeconfig input (base64 of PEM, as the kubeconfig holds it). */
  const clientKeyData = () => /client-key-data: *"?([A-Za-z0-9+/=]+)/.exec(stage.kubeconfig)?.[1] ?? '';
  const secretEnv = () => ({
    GIT_REMOTE: `https://x-access-token:${stage.github.token}@github.com/acme/shop-deploy`,
    KUBECONFIG_COPY: stage.kubeconfig,
    DATABASE_URL: `postgres://app:${dbPassword}@db.internal:5432/app`,
  });

  /** A bundle that reads the variables through runtime attributes and spells them out, spaced, into a ConfigMap value. */
  function spellingBundle(): string {
    return messageBundle(
      'sec-env-spelled',
      `_remote: *"absent" | string @timoni(runtime:string:GIT_REMOTE)
	_kube: *"absent" | string @timoni(runtime:string:KUBECONFIG_COPY)
	_db: *"absent" | string @timoni(runtime:string:DATABASE_URL)
	_at: strings.Index(_kube, "client-key-data: ") + 17
	_spell: {
		text: string
		out:  strings.Join(strings.Split(text, ""), " ")
	}
	_kubeKey: [if _kube == "absent" {"absent"}, if _kube != "absent" {(_spell & {text: strings.SliceRunes(_kube, _at+44, _at+104)}).out}][0]`,
      '"remote=\\((_spell & {text: _remote}).out) key=\\(_kubeKey) db=\\((_spell & {text: _db}).out)"',
      'import "strings"',
    );
  }

  it('withholds from runtime-from-env every variable whose value holds a secret of the run or a URL with a password, naming it in the log', async () => {
    const key = clientKeyData();
    expect(key.length, 'the fleet kubeconfig holds an inline client key').toBeGreaterThan(104);
    const { event, number } = openedEvent();
    const result = await run(event, { bundle: spellingBundle() }, secretEnv());
    expect(result.exitCode, result.log).toBe(0);
    const posted = comments(number);
    expect(posted).toHaveLength(1);
    // The bundle fell back to its defaults: nothing was offered to spell out.
    expect(posted[0]).toContain('remote=a b s e n t key=absent db=a b s e n t');
    // The key material past the PEM header's base64, which the bundle spells out.
    const forms = [stage.github.token, key.slice(44, 104), dbPassword];
    const spelled = forms.flatMap((form) => [
      spaced(form),
      spaced(form.slice(0, 20)),
      spaced(form.slice(0, 20).toUpperCase()),
    ]);
    for (const text of [...posted, result.log, result.summary, ...Object.values(result.outputs)]) {
      for (const form of spelled) expect(text.includes(form), 'a spelled-out secret').toBe(false);
    }
    assertNoSecretLeak(result, [...forms, ...spelled], posted);
    // The log names each variable withheld and why, never its value.
    const withheld = result.log.split('\n').find((line) => line.includes('runtime-from-env: withheld'));
    expect(withheld, result.log).toBeDefined();
    expect(withheld).toContain('GIT_REMOTE (secret)');
    expect(withheld).toContain('KUBECONFIG_COPY (secret)');
    expect(withheld).toContain('DATABASE_URL (password URL)');
    expect(withheld).not.toContain('DEMO_REGISTRY');
  });

  it('refuses a runtime-env list that names such a variable, naming it, before anything is diffed', async () => {
    const { event, number } = openedEvent();
    const result = await run(
      event,
      { bundle: spellingBundle(), 'runtime-from-env': 'false', 'runtime-env': 'DEMO_REGISTRY,GIT_REMOTE,DATABASE_URL' },
      secretEnv(),
    );
    expect(result.exitCode).toBe(1);
    expect(errorMessages(result)).toContain(
      'input "runtime-env": GIT_REMOTE (secret), DATABASE_URL (password URL) hold a secret of the run or a credential (as it stands or encoded), which is never given to runtime attributes',
    );
    expect(result.log).not.toMatch(/diffing/);
    assertNoSecretLeak(
      result,
      [stage.github.token, dbPassword, spaced(stage.github.token), spaced(dbPassword)],
      comments(number),
    );
  });
});

describe('files outside the workspace', () => {
  const hostSecret = 'zq7-sentinel-host-file-content';
  let outside: string;
  beforeAll(() => {
    outside = join(stage.workdir, '..', `outside-${process.pid}`);
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, 'secret.txt'), `${hostSecret}\n`);
  });

  /** A copy of the example module inside the workspace, as a pull request would commit it. */
  function localModule(name: string): string {
    const dir = join(stage.workdir, name);
    cpSync(join(REPO_ROOT, 'examples', 'modules', 'webapp'), dir, { recursive: true });
    return dir;
  }

  function localBundle(name: string, url: string): string {
    return file(
      `${name}.cue`,
      `bundle: {
	apiVersion: "v1alpha1"
	name: "${name}"
	instances: web: {
		module: url: "${url}"
		namespace: "sec"
	}
}
`,
    );
  }

  it('refuses a local module that links to /proc/self/environ and embeds it, naming the file and its target', async () => {
    const dir = localModule('mod-leak');
    mkdirSync(join(dir, 'leak'));
    symlinkSync('/proc/self/environ', join(dir, 'leak', 'environ'));
    writeFileSync(
      join(dir, 'templates', 'leak.cue'),
      '@extern(embed)\npackage main\n\n_leak: _ @embed(file="../leak/environ", type=text)\n',
    );
    const bundle = localBundle('sec-embed', 'file://./mod-leak');
    const { event, number } = openedEvent();
    const result = await run(event, { bundle }, { SENTINEL_VARIABLE: hostSecret });
    expect(result.exitCode).toBe(1);
    expect(errorMessages(result)).toMatch(
      /leak\/environ points to \/proc\/\d+\/environ, which is outside the allowed folder/,
    );
    assertNoSecretLeak(result, [hostSecret, stage.github.token], comments(number));
  });

  it('refuses a runtime file committed as a symlink to a host file, and local module URLs that leave the workspace', async () => {
    symlinkSync(join(outside, 'secret.txt'), join(stage.workdir, 'linked-runtime.cue'));
    const linked = await run(openedEvent().event, { runtime: 'linked-runtime.cue' });
    expect(linked.exitCode).toBe(1);
    expect(errorMessages(linked)).toMatch(
      /linked-runtime\.cue: points to .*secret\.txt, which is outside the allowed folder/,
    );
    assertNoSecretLeak(linked, [hostSecret]);

    for (const url of ['file:///etc', 'file://../../..']) {
      const result = await run(openedEvent().event, { bundle: localBundle(`sec-url-${url.length}`, url) });
      expect(result.exitCode, url).toBe(1);
      expect(errorMessages(result), url).toMatch(
        new RegExp(`module ${url.replace(/[./]/g, '\\$&')}: the module folder .* is outside the allowed folder`),
      );
    }
  });

  it('keeps symlinks that stay inside the workspace working (a module folder linked within the repository)', async () => {
    localModule('mod-shared');
    symlinkSync('mod-shared', join(stage.workdir, 'mod-linked'));
    const bundle = localBundle('sec-inside', 'file://./mod-linked');
    const result = await run(openedEvent().event, { bundle });
    expect(result.exitCode, result.log).toBe(0);
  });
});

describe('runtime value query paths', () => {
  it.each(['k8s:v1:Secret:sec-src:.', 'k8s:v1:Secret:..:.', 'k8s:v1:Secret:sec-src:a/b'])(
    'refuses %s before any request',
    async (query) => {
      const runtime = file(
        `sec-query-${query.length}-${query.charCodeAt(query.length - 1)}.cue`,
        `runtime: {
	apiVersion: "v1alpha1"
	name: "sec"
	clusters: "staging-1": {group: "staging", kubeContext: "fleet-1"}
	values: [{query: ${JSON.stringify(query)}, for: {"X": "obj.data"}}]
}
`,
      );
      const result = await run(openedEvent().event, { runtime });
      expect(result.exitCode).toBe(1);
      expect(errorMessages(result)).toMatch(/is not valid: (a namespace|an object name)/);
      expect(result.log).not.toContain('diffing');
    },
  );
});

describe('log injection and mentions', () => {
  it('refuses a cluster name that would start a workflow command, naming the file and field', async () => {
    const runtime = file(
      'sec-inject-runtime.cue',
      `runtime: {
	apiVersion: "v1alpha1"
	name: "sec"
	clusters: "a\\n::stop-commands::tok\\n": {group: "staging", kubeContext: "fleet-1"}
}
`,
    );
    const result = await run(openedEvent().event, { runtime });
    expect(result.exitCode).toBe(1);
    expect(result.commands.map((c) => c.command)).not.toContain('stop-commands');
    const error = result.commands.find((c) => c.command === 'error');
    expect(error?.message).toContain('runtime cluster name "a\\n::stop-commands::tok\\n" is invalid');
    expect(error?.properties.file).toBe('sec-inject-runtime.cue');
  });

  it('prints user text that looks like a workflow command as plain text, so that every later mask still works', async () => {
    const dispatch = workflowDispatchEvent({
      repository: DEMO_REPOSITORY,
      inputs: { mode: 'diff', 'cluster-group': 'none\n::stop-commands::tok\n::error::forged' },
    });
    const result = await run(dispatch, {});
    expect(result.commands.map((c) => c.command)).not.toContain('stop-commands');
    expect(result.commands.filter((c) => c.command === 'error').map((c) => c.message)).not.toContain('forged');
    expect(result.runnerErrors).toEqual([]);
    // Masks registered after that line still hide the kubeconfig's keys.
    expect(result.masked.length).toBeGreaterThan(0);
  });

  it('never lets a runtime group or an error text mention people or link issues in the comment', async () => {
    const runtime = file(
      'sec-mention-runtime.cue',
      `runtime: {
	apiVersion: "v1alpha1"
	name: "sec"
	clusters: "staging-1": {group: "@everyone #1", kubeContext: "fleet-1"}
}
`,
    );
    const bundle = messageBundle('sec-mention', '', '"hello"');
    const { event, number } = openedEvent();
    const result = await run(event, { bundle, runtime });
    expect(result.exitCode, result.log).toBe(0);
    const [body] = comments(number);
    expect(body).toContain('&#64;everyone &#35;1');
    expect(body).not.toMatch(/@everyone|#1\b/);
  });
});

describe('the sticky comment', () => {
  it('never edits a maintainer comment quoting the marker, nor another bundle whose diff holds it', async () => {
    const bundle = messageBundle('sec-sticky', '', '"sticky"');
    const { event, number } = openedEvent();
    const marker = '<!-- timoni-fleet:bundle=sec-sticky -->';
    const maintainer = { login: 'octo-maintainer', id: 9001, type: 'User' as const };
    const quoting = stage.github.state.addComment({
      owner: DEMO_REPOSITORY.owner,
      repo: DEMO_REPOSITORY.name,
      issueNumber: number,
      body: `${marker}\nplease look at this`,
      user: maintainer,
    });
    const other = stage.github.state.addComment({
      owner: DEMO_REPOSITORY.owner,
      repo: DEMO_REPOSITORY.name,
      issueNumber: number,
      body: `<!-- timoni-fleet:bundle=infra -->\n+ note: ${marker}`,
    });
    const result = await run(event, { bundle });
    expect(result.exitCode, result.log).toBe(0);
    expect(stage.github.state.comment(quoting.id)?.body).toBe(`${marker}\nplease look at this`);
    expect(stage.github.state.comment(other.id)?.body).toBe(`<!-- timoni-fleet:bundle=infra -->\n+ note: ${marker}`);
    const all = comments(number);
    expect(all).toHaveLength(3);
    expect(all[2]?.startsWith(`${marker}\n`)).toBe(true);
    expect(all[2]).toContain('staging-1');
  });

  it('names the bundle files in the marker when the bundle name is unknown', async () => {
    const bundle = file('sec-nameless.cue', 'bundle: {\n\tapiVersion: "v1alpha1"\n\tname: 1 & 2\n}\n');
    const { event, number } = openedEvent();
    const result = await run(event, { bundle });
    expect(result.exitCode).toBe(1);
    const [body] = comments(number);
    expect(body?.startsWith('<!-- timoni-fleet:files=sec-nameless.cue -->\n'), body).toBe(true);
  });
});

describe('events and inputs fail closed', () => {
  it('refuses an unknown dispatch mode, and a dispatch apply from a branch that is not the default one', async () => {
    const yolo = await run(workflowDispatchEvent({ repository: DEMO_REPOSITORY, inputs: { mode: 'yolo' } }), {});
    expect(yolo.exitCode).toBe(1);
    expect(errorMessages(yolo)).toContain(
      'the workflow_dispatch input "mode" must be one of auto, diff, apply, rollback, not "yolo"',
    );
    const feature = await run(
      workflowDispatchEvent({ repository: DEMO_REPOSITORY, ref: 'refs/heads/feature-x', inputs: {} }),
      {},
    );
    expect(feature.exitCode).toBe(1);
    expect(errorMessages(feature)).toContain(
      'applies only from the default branch (main), not from refs/heads/feature-x',
    );
    expect(feature.log).not.toContain('applying module');
    expect(feature.outputs['applied-clusters'] ?? '').toBe('');
  });

  it('refuses a pull request merged into a branch other than the default one, and applies nothing', async () => {
    // A name of this run's own: the control below creates it.
    const sentinel = `sec-merged-${Date.now().toString(36)}`;
    const bundle = file(
      `${sentinel}.cue`,
      `bundle: {
	${header}
	name: "${sentinel}"
	instances: "${sentinel}": {
		${moduleBlock}
		namespace: "${sentinel}"
	}
}
`,
    );
    const pr = stage.openPullRequest(pullRequests++);
    const merged = pullRequestEvent({
      action: 'closed',
      merged: true,
      mergeCommitSha: pr.mergeCommitSha,
      repository,
      number: pr.number,
      headSha: pr.headSha,
      baseRef: 'release-x',
    });
    const refusedInputs: Array<Record<string, string>> = [{ bundle }, { bundle, mode: 'apply' }];
    for (const inputs of refusedInputs) {
      const result = await run(merged, inputs);
      expect(result.exitCode, result.log).toBe(1);
      expect(errorMessages(result)).toContain(
        'input "mode": a pull request merged into "release-x" applies only from the default branch (main), not from refs/heads/release-x; list the refs that may be applied in the "apply-refs" input to allow it',
      );
      expect(result.log).not.toMatch(/applying module|diffing/);
      expect(result.outputs['applied-clusters'] ?? '').toBe('');
    }
    // Nothing reached a cluster: the instance's namespace was never created.
    const namespaces = () =>
      Promise.all(
        [0, 1, 2].map((index) =>
          clusterClient(index).getOrNull({ apiVersion: 'v1', kind: 'Namespace', name: sentinel }),
        ),
      );
    expect(await namespaces()).toEqual([null, null, null]);
    // The control: with the base allowed by apply-refs, the same event applies and creates it.
    const allowed = await run(merged, { bundle, 'apply-refs': 'release-*', wait: 'false' });
    expect(allowed.exitCode, allowed.log).toBe(0);
    expect((await namespaces()).map((namespace) => namespace?.metadata?.name)).toEqual([sentinel, sentinel, sentinel]);
    await Promise.all(
      [0, 1, 2].map((index) => clusterClient(index).delete({ apiVersion: 'v1', kind: 'Namespace', name: sentinel })),
    );
  });

  it('refuses mode apply on a pull request, pull_request_target without trusted-checkout, and an empty kubeconfig', async () => {
    const applyOnPr = await run(openedEvent().event, { mode: 'apply' });
    expect(applyOnPr.exitCode).toBe(1);
    expect(errorMessages(applyOnPr)).toContain("would apply the pull request's unmerged code");
    const target = { ...openedEvent().event, name: 'pull_request_target' };
    const refused = await run(target, {});
    expect(refused.exitCode).toBe(1);
    expect(errorMessages(refused)).toContain('trusted-checkout: true');
    const empty = await run(openedEvent().event, { kubeconfig: '' });
    expect(empty.exitCode).toBe(1);
    expect(errorMessages(empty)).toContain('input "kubeconfig": is empty');
    for (const result of [applyOnPr, refused, empty]) expect(result.log).not.toMatch(/applying module|diffing/);
  });

  it('refuses registry credentials that are not bound to a host, never printing them', async () => {
    const password = 'zq7-sentinel-registry-passw0rd';
    const result = await run(openedEvent().event, { 'registry-creds': `robot:${password}` });
    expect(result.exitCode).toBe(1);
    expect(errorMessages(result)).toContain('input "registry-creds": entry 1 is not of the form host=user:password');
    assertNoSecretLeak(result, [password]);
    const bound = await run(openedEvent().event, { 'registry-creds': `other-registry.example=robot:${password}` });
    expect(bound.exitCode, bound.log).toBe(0);
    assertNoSecretLeak(bound, [password]);
  });

  it('refuses an exec plugin with a relative command in the kubeconfig input, before anything runs', async () => {
    const marker = join(stage.workdir, 'plugin-ran.txt');
    file('hack/token.sh', `#!/bin/sh\nenv > ${marker}\n`);
    const kubeconfig = stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'evil',
      clusters: [{ name: 'evil', cluster: { server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true } }],
      users: [
        { name: 'evil', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: './hack/token.sh' } } },
      ],
      contexts: [{ name: 'evil', context: { cluster: 'evil', user: 'evil' } }],
    });
    const result = await run(openedEvent().event, { kubeconfig: `${stage.kubeconfig}\n---\n${kubeconfig}` });
    expect(result.exitCode).toBe(1);
    expect(errorMessages(result)).toContain(
      'exec command "./hack/token.sh" is a relative path, which kubectl resolves against the kubeconfig file\'s folder; this kubeconfig was given inline',
    );
    expect(existsSync(marker)).toBe(false);
  });

  it("names GitHub's HTML error page instead of failing on its markup", async () => {
    stage.github.state.forceError({
      status: 502,
      html: true,
      method: 'GET',
      path: /\/issues\/\d+\/comments$/,
      times: 3,
    });
    const result = await run(openedEvent().event, {});
    // The diff's comment could not be posted: the step fails, naming GitHub's answer.
    expect(result.exitCode, result.log).toBe(1);
    const error = result.commands.find((c) => c.command === 'error' && c.properties.title === 'PR comment not posted');
    expect(error?.message).toMatch(/answered 502: an HTML error page instead of JSON/);
    expect(result.log).not.toContain('Unexpected token');
  });
});
