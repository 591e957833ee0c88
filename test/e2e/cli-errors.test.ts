// End to end: a user's mistakes, as the CLI tells them (`node dist/cli/index.js diff` on the
// local fleet). A typo in an instance's values is reported at the bundle's own line and
// column, the one the value is on (found in the file's text here, never written down),
// whether the values are a struct literal, reach the instance through a reference, or
// belong to the second of two instances; never at a line of the values.cue the build
// makes up in memory. An error of the bundle itself is told once, as the bundle's, before
// any cluster, in words (no internal schema file, no regular expression). Without `-r`, a
// bundle that reads runtime values says so. A context whose credentials the API server
// refuses says that, once; a kubeconfig that does not parse gives the parser's reason.
import { execFile } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { scratchDir, testFleet } from '../harness/fleet/test-context.js';
import { repositoryRoot } from '../harness/support/go-binary.js';

const cli = join(repositoryRoot, 'dist', 'cli', 'index.js');
/** The example module, copied beside the bundles (local modules must live inside the working directory). */
const moduleUrl = 'file://./webapp';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let dir: string;

function timoniFleet(args: string[], kubeconfig = testFleet().kubeconfigPath): Promise<Run> {
  const argv = [cli, ...args, '--kubeconfig', kubeconfig];
  const env = { PATH: process.env.PATH ?? '', HOME: dir, XDG_CACHE_HOME: join(dir, 'cache') };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      argv,
      { cwd: dir, env, timeout: 110_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

/** `diff` of a bundle file written under `name`, on two clusters of the fleet, identity not checked (nothing is recorded). */
async function diff(name: string, text: string, runtime: string | null = 'runtime.cue'): Promise<Run> {
  writeFileSync(join(dir, name), text);
  return timoniFleet(['diff', '-f', name, ...(runtime ? ['-r', runtime] : []), '--cluster-identity', 'off']);
}

/** `file:line:column` of the first occurrence of `text` in the file, 1-based as CUE counts (a tab is one column). */
function positionOf(file: string, text: string): string {
  const lines = readFileSync(join(dir, file), 'utf8').split('\n');
  const index = lines.findIndex((line) => line.includes(text));
  if (index < 0) throw new Error(`${text} is not in ${file}`);
  return `${file}:${index + 1}:${(lines[index] as string).indexOf(text) + 1}`;
}

const count = (text: string, part: string): number => text.split(part).length - 1;

beforeAll(() => {
  dir = scratchDir('cli-errors');
  cpSync(join(repositoryRoot, 'examples', 'modules', 'webapp'), join(dir, 'webapp'), { recursive: true });
  writeFileSync(
    join(dir, 'runtime.cue'),
    `runtime: {
	apiVersion: "v1alpha1"
	name:       "errors"
	clusters: {
		"stage-1": {group: "staging", kubeContext: "${testFleet().clusters[0]!.contextName}"}
		"prod-1": {group: "production", kubeContext: "${testFleet().clusters[1]!.contextName}"}
	}
}
`,
  );
});

describe('a typo in instance values points at the bundle line the value is on', () => {
  it('values as a struct literal, the field set under a condition on a runtime value', async () => {
    const run = await diff(
      'literal.cue',
      `bundle: {
	_group: string @timoni(runtime:string:TIMONI_CLUSTER_GROUP)
	apiVersion: "v1alpha1"
	name:       "errors-literal"
	instances: web: {
		module: url: "${moduleUrl}"
		namespace: "errors-literal"
		values: {
			message: "hello"
			if _group != "" {
				replcas: 1
			}
		}
	}
}
`,
    );
    expect(run.code).toBe(2);
    // The module's place that closes the values (`config: #Config`) comes after the user's line, as also.
    expect(run.stderr).toContain(
      `${positionOf('literal.cue', 'replcas')}: values.replcas: field not allowed (also ./templates/config.cue:`,
    );
    expect(run.stderr).not.toContain('values.cue');
    // Both clusters fail on their own build: once each, not once per object that copies the config.
    expect(count(run.stderr, 'values.replcas: field not allowed')).toBe(2);
  });

  it('values reached through a reference, a value of the wrong type', async () => {
    const run = await diff(
      'reference.cue',
      `_common: {
	message:  "shared"
	replicas: "many"
}
bundle: {
	apiVersion: "v1alpha1"
	name:       "errors-reference"
	instances: web: {
		module: url: "${moduleUrl}"
		namespace: "errors-reference"
		values: _common
	}
}
`,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `${positionOf('reference.cue', 'replicas: "many"')}: values.replicas: conflicting values "many" and`,
    );
    // The module's own positions come after the user's, as "also".
    expect(run.stderr).toMatch(
      /values\.replicas: conflicting values "many" and 1 \(mismatched types string and int\) \(also \.\/templates\/config\.cue:\d+:\d+/,
    );
    expect(run.stderr).not.toContain('values.cue');
  });

  it('the second of two instances', async () => {
    const instance = (name: string, values: string) => `${name}: {
			module: url: "${moduleUrl}"
			namespace: "errors-two"
			values: {${values}}
		}`;
    const run = await diff(
      'two.cue',
      `bundle: {
	apiVersion: "v1alpha1"
	name:       "errors-two"
	instances: {
		${instance('first', 'message: "one"')}
		${instance('second', '\n\t\t\t\tmessage: "two"\n\t\t\t\ttest: enabeld: false\n\t\t\t')}
	}
}
`,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('instance second');
    expect(run.stderr).toContain(`${positionOf('two.cue', 'enabeld')}: values.test.enabeld: field not allowed`);
    expect(run.stderr).not.toContain('values.cue');
  });
});

describe("an error of the bundle itself is the bundle's, told once before any cluster", () => {
  const bundle = (instances: string, url = moduleUrl) => `bundle: {
	apiVersion: "v1alpha1"
	name:       "errors-bundle"
	${instances}: web: {
		module: url: "${url}"
		namespace: "errors-bundle"
		values: {}
	}
}
`;

  it('a misspelled field', async () => {
    const run = await diff('misspelled.cue', bundle('instaces'));
    expect(run.code).toBe(2);
    expect(count(run.stderr, 'instaces')).toBe(1);
    expect(run.stderr).toContain(
      `${positionOf('misspelled.cue', 'instaces')}: bundle.instaces: field not allowed: a bundle has the fields apiVersion, name and instances`,
    );
    expect(run.stderr.indexOf('the bundle is not valid')).toBeLessThan(run.stderr.indexOf('── cluster'));
    expect(run.stderr).not.toMatch(/failed to load cluster|bundle-schema/);
  });

  it('a module URL the schema refuses, in words', async () => {
    const run = await diff('url.cue', bundle('instances', 'https://example.com/webapp'));
    expect(run.code).toBe(2);
    expect(count(run.stderr, 'https://example.com/webapp')).toBe(1);
    expect(run.stderr).toContain('the module URL must be a string starting with oci:// or file://');
    expect(run.stderr).not.toMatch(/=~|bundle-schema/);
  });

  it('a syntax error', async () => {
    const run = await diff('syntax.cue', bundle('instances').replace('values: {}', 'values: {,,}'));
    expect(run.code).toBe(2);
    expect(count(run.stderr, positionOf('syntax.cue', ',,'))).toBe(1);
    expect(run.stderr).not.toMatch(/failed to load cluster/);
  });
});

it('without -r, a bundle that reads runtime values says that no runtime was given', async () => {
  const run = await diff(
    'runtime-values.cue',
    readFileSync(join(repositoryRoot, 'examples', 'bundle.cue'), 'utf8'),
    null,
  );
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(
    /the bundle reads runtime values \(TIMONI_CLUSTER_NAME, TIMONI_CLUSTER_GROUP[^)]*\) but no runtime was given \(-r runtime\.cue/,
  );
});

describe('a cluster that cannot be used says why, once', () => {
  const okBundle = `bundle: {
	apiVersion: "v1alpha1"
	name:       "errors-connect"
	instances: web: {
		module: url: "${moduleUrl}"
		namespace: "errors-connect"
		values: {}
	}
}
`;

  it('credentials the API server refuses (401)', async () => {
    const fleet = testFleet();
    const server = fleet.clusters[0]!.server;
    const kubeconfig = join(dir, 'refused.kubeconfig');
    writeFileSync(
      kubeconfig,
      `apiVersion: v1
kind: Config
clusters:
  - name: refused
    cluster:
      server: ${server}
      certificate-authority: ${fleet.clusters[0]!.caCertPath}
users:
  - name: nobody
    user:
      token: not-a-token-of-this-cluster
contexts:
  - name: refused
    context: {cluster: refused, user: nobody}
`,
    );
    writeFileSync(
      join(dir, 'refused-runtime.cue'),
      'runtime: {\n\tapiVersion: "v1alpha1"\n\tname: "refused"\n\tclusters: "stage-9": {group: "staging", kubeContext: "refused"}\n}\n',
    );
    writeFileSync(join(dir, 'ok.cue'), okBundle);
    const run = await timoniFleet(
      ['diff', '-f', 'ok.cue', '-r', 'refused-runtime.cue', '--cluster-identity', 'off'],
      kubeconfig,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'cannot reach cluster stage-9: the API server rejected the credentials of kube context "refused" (401 Unauthorized on GET /version)',
    );
    expect(count(run.stderr, 'stage-9')).toBe(2); // the group's title and the line, not `cluster stage-9: cluster stage-9`
    expect(run.stderr).not.toContain('not-a-token');
  });

  it("a kubeconfig that does not parse gives the parser's reason", async () => {
    const kubeconfig = join(dir, 'broken.kubeconfig');
    writeFileSync(kubeconfig, 'apiVersion: v1\nclusters:\n  - name: a: b: c\n    token: s3cr3t-in-the-broken-line\n');
    writeFileSync(join(dir, 'ok.cue'), okBundle);
    const run = await timoniFleet(
      ['diff', '-f', 'ok.cue', '-r', 'runtime.cue', '--cluster-identity', 'off'],
      kubeconfig,
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/is not valid YAML: \S.* at line 3, column \d+\n/);
    expect(run.stderr).not.toContain('s3cr3t');
  });
});
