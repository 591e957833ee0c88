import { describe, expect, it } from 'vitest';
import {
  containsSecret,
  MASK,
  maskableValues,
  credentialIn,
  maskSecrets,
  MIN_SECRET_LENGTH,
  SecretRegistry,
} from '../src/secrets.js';

describe('maskSecrets', () => {
  it('replaces every occurrence of each secret', () => {
    expect(maskSecrets('token=s3cr3t-token and again s3cr3t-token', ['s3cr3t-token'])).toBe(
      `token=${MASK} and again ${MASK}`,
    );
  });

  it('masks the longest secret first, leaving no fragment of it', () => {
    const masked = maskSecrets('password: hunter2-extended', ['hunter2', 'hunter2-extended']);
    expect(masked).toBe(`password: ${MASK}`);
  });

  it(`ignores empty, blank and values shorter than ${MIN_SECRET_LENGTH} characters`, () => {
    expect(maskableValues(['', '   ', 'on', 'abc'])).toEqual([]);
    expect(maskableValues(['abcd'])).toEqual(
      expect.arrayContaining(['abcd', 'ABCD', 'YWJjZA==', 'YWJjZA', '61626364']),
    );
    expect(maskSecrets('on abc abcd', ['', 'on', 'abc', 'abcd'])).toBe(`on abc ${MASK}`);
  });

  it('masks each line of a multi-line secret and its base64 form', () => {
    const key = '-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END KEY-----';
    const masked = maskSecrets('data: MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', [key]);
    expect(masked).toBe(`data: ${MASK}`);
    const base64 = Buffer.from('my-db-password').toString('base64');
    expect(maskSecrets(`password: ${base64}`, ['my-db-password'])).toBe(`password: ${MASK}`);
  });

  it('treats regular expression characters literally', () => {
    expect(maskSecrets('a.b*c(d) axb*c(d)', ['a.b*c(d)'])).toBe(`${MASK} axb*c(d)`);
  });

  it('never makes the text longer', () => {
    const text = 'abcd efgh abcdefgh';
    expect(maskSecrets(text, ['abcd', 'efgh']).length).toBeLessThanOrEqual(text.length);
  });

  it('tells whether a text contains a secret', () => {
    expect(containsSecret('x s3cr3t-token y', ['s3cr3t-token'])).toBe(true);
    expect(containsSecret('x y', ['s3cr3t-token'])).toBe(false);
  });
});

describe('the cheap transforms of a secret', () => {
  const secret = 's3cr3t/Value+x?';
  const forms: Array<[string, string]> = [
    ['upper case', secret.toUpperCase()],
    ['lower case', secret.toLowerCase()],
    ['base64', Buffer.from(secret).toString('base64')],
    ['base64 without padding', Buffer.from(secret).toString('base64').replace(/=+$/, '')],
    ['URL-safe base64', Buffer.from(secret).toString('base64url')],
    ['hex', Buffer.from(secret).toString('hex')],
    ['upper-case hex', Buffer.from(secret).toString('hex').toUpperCase()],
    ['URL encoding', encodeURIComponent(secret)],
    ['JSON escaping', JSON.stringify(secret).slice(1, -1)],
  ];
  it.each(forms)('masks the %s form', (_name, form) => {
    expect(maskSecrets(`value: ${form} end`, [secret])).toBe(`value: ${MASK} end`);
  });

  it('masks the JSON-escaped form of a multi-line value and its lines', () => {
    const value = 'line-one-secret\nline-two "quoted"';
    const text = JSON.stringify({ v: value });
    expect(containsSecret(text, [value])).toBe(true);
    expect(maskSecrets(text, [value])).not.toContain('line-one-secret');
  });

  it('cannot promise arbitrary transforms (documented): a reversed value is not recognised', () => {
    expect(maskSecrets(`value: ${[...secret].reverse().join('')}`, [secret])).not.toContain(MASK);
  });

  it('the registry tells the caller every form once and redacts all of them', () => {
    const seen: string[] = [];
    const registry = new SecretRegistry((value) => seen.push(value));
    registry.register('tok3n-Value');
    registry.register('tok3n-Value');
    expect(seen.filter((value) => value === 'tok3n-Value')).toHaveLength(1);
    expect(seen).toEqual(
      expect.arrayContaining(['TOK3N-VALUE', 'tok3n-value', Buffer.from('tok3n-Value').toString('hex')]),
    );
    expect(registry.redact('a TOK3N-VALUE b dG9rM24tVmFsdWU c')).toBe(`a ${MASK} b ${MASK} c`);
    expect(registry.secrets()).toEqual(['tok3n-Value']);
  });
});

describe('SecretRegistry', () => {
  it('reports each secret once and scrubs it from text, longest first', () => {
    const seen: string[] = [];
    const secrets = new SecretRegistry((v) => seen.push(v));
    secrets.add('hunter2');
    secrets.add('hunter2');
    secrets.add('hunter22-long');
    secrets.add('ab'); // too short to redact usefully, but the runner is told to mask it
    secrets.add(undefined);
    expect(seen.filter((value) => value === 'hunter2')).toHaveLength(1);
    expect(seen).toEqual(expect.arrayContaining(['hunter2', 'hunter22-long', 'HUNTER2', 'aHVudGVyMg==', 'ab']));
    expect(secrets.redact('a hunter22-long and hunter2 and ab')).toBe('a *** and *** and ab');
  });
});

describe('SecretRegistry.secretIn: whether a text holds a secret, for what is never given to untrusted code', () => {
  const token = 'ghs_zq7SentinelT0kenValue';
  const registry = new SecretRegistry();
  registry.register(token);
  registry.register('abc');

  it('finds a registered secret anywhere in a text, and every form that masking knows', () => {
    expect(registry.secretIn(token)).toBe('secret');
    expect(registry.secretIn(`token=${token};`)).toBe('secret');
    for (const form of [
      token.toUpperCase(),
      token.toLowerCase(),
      Buffer.from(token).toString('base64'),
      Buffer.from(token).toString('hex'),
      encodeURIComponent(`${token}/`),
    ]) {
      expect(registry.secretIn(`prefix ${form} suffix`), form).toBe('secret');
    }
  });

  it('finds a URL with a password, registered or not, as it stands (its encodings: test/bundle/runtime-environment)', () => {
    expect(registry.secretIn('postgres://app:hunter3@db.internal:5432/app')).toBe('password URL');
    expect(registry.secretIn('git clone https://x-access-token:other@github.com/o/r')).toBe('password URL');
    // The registered secret as the password: a secret first.
    expect(registry.secretIn(`https://x-access-token:${token}@github.com/o/r`)).toBe('secret');
    // secretIn does not decode: an encoded text is the caller's to decode, layer by layer.
    expect(registry.secretIn(Buffer.from('https://u:p4ss@h/').toString('base64'))).toBeUndefined();
  });

  it('leaves ordinary text alone: hosts, URLs without a password, a value that only holds a too-short secret', () => {
    for (const text of [
      'registry.example:5000',
      'https://user@mirror.example/',
      'http://host:8080/path@x',
      'ssh://git@github.com:22/o/r',
      'main',
      'deadbeef',
      '100%',
      'a\\b',
      'abcdef',
    ]) {
      expect(registry.secretIn(text), text).toBeUndefined();
    }
    // A value equal to a too-short secret is still one.
    expect(registry.secretIn('abc')).toBe('secret');
  });

  it('finds a document registered whole (a kubeconfig), without masking or forwarding it', () => {
    const forwarded: string[] = [];
    const documents = new SecretRegistry((value) => forwarded.push(value));
    const kubeconfig =
      'apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n    exec:\n      command: gke-gcloud-auth-plugin\n';
    documents.registerDocument(kubeconfig);
    expect(documents.secretIn(`copy:\n${kubeconfig}`)).toBe('secret');
    expect(documents.secretIn(kubeconfig.trim())).toBe('secret');
    // Its lines are not secrets by themselves, and nothing of it is masked or sent to the runner.
    expect(documents.secretIn('apiVersion: v1\nkind: Config')).toBeUndefined();
    expect(documents.redact(kubeconfig)).toBe(kubeconfig);
    expect(forwarded).toEqual([]);
  });
});

describe('credentialIn: credentials secret by their shape, registered or not', () => {
  it('finds URLs and connection strings with a password in every common form', () => {
    for (const text of [
      'postgres://app:hunter2@db:5432/app',
      'https://:t0ken@github.com/o/r',
      'jdbc:postgresql://db:5432/x?user=u&password=hunter2',
      'jdbc:mysql://db/x?user=u&pwd=hunter2',
    ]) {
      expect(credentialIn(text), text).toMatch(/^password( URL)?$/);
    }
    for (const text of [
      'Server=db;Database=x;User Id=u;Password=hunter2;',
      'Data Source=db;Initial Catalog=x;User ID=u;PWD=hunter2',
      'host=db user=u passwd=hunter2',
      'amqp --pass=hunter2',
      'DB_PASSWORD=hunter2',
      'password: hunter2',
      '{"user": "u", "password": "hunter2"}',
    ]) {
      expect(credentialIn(text), text).toBe('password');
    }
  });

  it('finds PEM private keys, kubeconfig user credentials and Docker registry credentials', () => {
    for (const kind of ['', 'RSA ', 'EC ', 'OPENSSH ', 'ENCRYPTED ', 'PGP ']) {
      const block = kind === 'PGP ' ? ' BLOCK' : '';
      expect(credentialIn(`-----BEGIN ${kind}PRIVATE KEY${block}-----\nMIIB\n`), kind).toBe('private key');
    }
    const kubeconfig = (user: string) =>
      `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://k:6443\nusers:\n- name: u\n  user:\n    ${user}\n`;
    expect(credentialIn(kubeconfig('client-key-data: LS0tLS1CRUdJTg=='))).toBe('kubeconfig credential');
    expect(credentialIn(kubeconfig('token: abc.def.ghi'))).toBe('kubeconfig credential');
    expect(credentialIn(JSON.stringify({ users: [{ name: 'u', user: { token: 'abc' } }] }))).toBe(
      'kubeconfig credential',
    );
    // An exec kubeconfig holds no credential.
    expect(credentialIn(kubeconfig('exec: {command: gke-gcloud-auth-plugin}'))).toBeUndefined();
    expect(credentialIn('{"auths": {"ghcr.io": {"auth": "dTpw"}}}')).toBe('registry credential');
    expect(credentialIn('{"auths": {"ghcr.io": {"identitytoken": "x"}}}')).toBe('registry credential');
    expect(credentialIn('{"credHelpers": {"gcr.io": "gcloud"}}')).toBeUndefined();
  });

  it('leaves ordinary values alone: plain URLs, words that contain "pass", empty passwords, public keys', () => {
    for (const text of [
      'eu-west-1',
      'https://user@mirror.example/',
      'https://registry.example/v2/?page=2',
      'http://host:8080/path@x',
      'ssh://git@github.com:22/o/r',
      'bypass=true',
      'compass=north',
      'password=',
      'Password=;Server=db',
      '{"password": ""}',
      '-----BEGIN PUBLIC KEY-----',
      '-----BEGIN CERTIFICATE-----',
      'token: abc',
      'dev',
    ]) {
      expect(credentialIn(text), text).toBeUndefined();
    }
  });
});
