// End to end (issue 31, item 3): runtime-from-env withholds a variable whose value holds a
// secret of the run or a credential inside nested encodings, as an attacker would find it.
// The attacks that got through before: a DOCKER_AUTH_CONFIG whose `auth` is base64 of
// `user:<job token>`, a gzip+base64 kubeconfig (its client key), a JDBC URL with
// `password=`; and the job token in base64url, hex, percent-encoding and base64 inside
// base64. The pull request's bundle reads every variable through runtime attributes and
// spells it out, spaced, into a ConfigMap (past any masking): `node dist/index.js` on the
// local fleet must offer none of them, name each in the log (never the value), and still
// offer ordinary values.
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertNoSecretLeak, pullRequestEvent, runAction, type ActionRun } from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const currentStage = useDemoStage('wenc');
let stage: DemoStage;
beforeAll(() => {
  stage = currentStage();
});

const dbPassword = 'zq7-sentinel-jdbc-hunter2';
/** The text spaced out: what masking cannot recognise. */
const spaced = (text: string) => text.split('').join(' ');
const base64 = (text: string | Buffer) => Buffer.from(text).toString('base64');
/** Every character as %XX, letters and digits too. */
const percentEncoded = (text: string) =>
  [...Buffer.from(text)].map((byte) => `%${byte.toString(16).padStart(2, '0').toUpperCase()}`).join('');

/** The attack variables, from the run's own secrets (the job token, the kubeconfig input). */
function attackEnv(): Record<string, string> {
  const token = stage.github.token;
  return {
    DOCKER_AUTH_CONFIG: JSON.stringify({ auths: { 'ghcr.io': { auth: base64(`ci-user:${token}`) } } }),
    KUBECONFIG_GZ: base64(gzipSync(stage.kubeconfig)),
    JDBC_URL: `jdbc:postgresql://db.internal:5432/app?user=app&password=${dbPassword}`,
    TOKEN_B64URL: Buffer.from(`x token ${token}`).toString('base64url'),
    TOKEN_HEX: Buffer.from(`token=${token}`).toString('hex'),
    TOKEN_PERCENT: percentEncoded(`token=${token}`),
    // Two levels: base64 of a text that holds base64url of the token, misaligned.
    TOKEN_NESTED: base64(`creds: ${Buffer.from(`xy${token}`).toString('base64url')}\n`),
  };
}

const ordinaryEnv = {
  REGION: 'eu-west-1',
  STAGE: 'dev',
  CAFE: 'cafe',
  MIRROR: 'https://mirror.example/v2/',
};

const attackNames = Object.keys({
  DOCKER_AUTH_CONFIG: 0,
  KUBECONFIG_GZ: 0,
  JDBC_URL: 0,
  TOKEN_B64URL: 0,
  TOKEN_HEX: 0,
  TOKEN_PERCENT: 0,
  TOKEN_NESTED: 0,
});

/** The bundle: each attack variable spelled out spaced (its first 300 characters), the ordinary ones as they are. */
function spellingBundle(): string {
  const name = 'wenc-spelled';
  const fields = attackNames.map((variable) => `_${variable}: *"absent" | string @timoni(runtime:string:${variable})`);
  const ordinary = Object.keys(ordinaryEnv).map(
    (variable) => `_${variable}: *"absent" | string @timoni(runtime:string:${variable})`,
  );
  const spelled = attackNames.map((variable) => `${variable}=\\((_spell & {text: _${variable}}).out)`).join(' ');
  const shown = Object.keys(ordinaryEnv)
    .map((variable) => `${variable}=\\(_${variable})`)
    .join(' ');
  const body = `import (
	"list"
	"strings"
)

bundle: {
	_registry: string @timoni(runtime:string:DEMO_REGISTRY)
	apiVersion: "v1alpha1"
	${[...fields, ...ordinary].join('\n\t')}
	_spell: {
		text: string
		out:  strings.Join(strings.Split(strings.SliceRunes(text, 0, list.Min([300, len(text)])), ""), " ")
	}
	name: "${name}"
	instances: web: {
		module: {url: "oci://\\(_registry)/modules/webapp", version: "1.4.0"}
		namespace: "wenc"
		values: message: "${spelled} ${shown}"
	}
}
`;
  const path = join(stage.workdir, `${name}.cue`);
  mkdirSync(stage.workdir, { recursive: true });
  writeFileSync(path, body);
  return `${name}.cue`;
}

function run(number: number, headSha: string, env: Record<string, string>): Promise<ActionRun> {
  return runAction({
    event: pullRequestEvent({ action: 'opened', repository, number, headSha }),
    githubApiUrl: stage.github.url,
    token: stage.github.token,
    workdir: stage.workdir,
    inputs: { ...stage.inputs, bundle: spellingBundle() },
    env: { ...stage.env, ...env },
    timeoutMs: 110_000,
    keepTemp: true,
  });
}

describe('runtime-from-env: values that hold a secret inside nested encodings', () => {
  it('withholds every attack variable, naming each with why, and offers the ordinary ones', async () => {
    const clientKeyData = /client-key-data: *"?([A-Za-z0-9+/=]+)/.exec(stage.kubeconfig)?.[1] ?? '';
    const clientKey = Buffer.from(clientKeyData, 'base64').toString('utf8');
    expect(clientKey, 'the fleet kubeconfig holds an inline client key').toContain('PRIVATE KEY');
    const env = attackEnv();
    const pr = stage.openPullRequest(310);
    const result = await run(pr.number, pr.headSha, { ...env, ...ordinaryEnv });
    expect(result.exitCode, result.log).toBe(0);
    const posted = stage.github.state
      .comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.number)
      .map((comment) => comment.body);
    expect(posted).toHaveLength(1);

    // The secrets, and the variables' values (an attacker decodes them offline), in no
    // comment, summary, log or output: as they are, in their encodings, or spaced out.
    const keyBody = clientKey.split('\n')[1] ?? '';
    expect(keyBody.length).toBeGreaterThan(20);
    const secrets = [stage.github.token, keyBody, dbPassword];
    const values = Object.values(env).map((value) => value.slice(0, 60));
    const spelledOut = [...secrets, ...values].flatMap((text) => [spaced(text), spaced(text.slice(0, 20))]);
    assertNoSecretLeak(result, [...secrets, ...values, ...spelledOut], posted);

    // Nothing was offered to spell out; the ordinary values were, as they are (no false positive).
    const absent = attackNames.map((variable) => `${variable}=a b s e n t`).join(' ');
    expect(posted[0]).toContain(`${absent} REGION=eu-west-1 STAGE=dev CAFE=cafe MIRROR=https://mirror.example/v2/`);

    // The log names each variable withheld and why, never its value.
    const withheld = result.log.split('\n').find((line) => line.includes('runtime-from-env: withheld'));
    expect(withheld, result.log).toBeDefined();
    expect(withheld).toContain('DOCKER_AUTH_CONFIG (registry credential)');
    expect(withheld).toContain('KUBECONFIG_GZ (secret in gzip in base64)');
    expect(withheld).toContain('JDBC_URL (password)');
    expect(withheld).toContain('TOKEN_B64URL (secret in base64)');
    expect(withheld).toContain('TOKEN_HEX (secret)');
    expect(withheld).toContain('TOKEN_PERCENT (secret in percent-encoding)');
    expect(withheld).toContain('TOKEN_NESTED (secret in base64 in base64)');
    for (const variable of Object.keys(ordinaryEnv)) expect(withheld).not.toContain(`${variable} (`);
  });
});
