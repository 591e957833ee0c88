import { describe, expect, it } from 'vitest';
import { SecretRegistry } from '../src/secrets.js';
import { containsSecret, MASK, maskableValues, maskSecrets, MIN_SECRET_LENGTH } from '../src/secrets.js';

describe('maskSecrets', () => {
  it('replaces every occurrence of each secret', () => {
    expect(maskSecrets('token=s3cr3t-token and again s3cr3t-token', ['s3cr3t-token'])).toBe(`token=${MASK} and again ${MASK}`);
  });

  it('masks the longest secret first, leaving no fragment of it', () => {
    const masked = maskSecrets('password: hunter2-extended', ['hunter2', 'hunter2-extended']);
    expect(masked).toBe(`password: ${MASK}`);
  });

  it(`ignores empty, blank and values shorter than ${MIN_SECRET_LENGTH} characters`, () => {
    expect(maskableValues(['', '   ', 'on', 'abc'])).toEqual([]);
    expect(maskableValues(['abcd'])).toEqual(expect.arrayContaining(['abcd', 'ABCD', 'YWJjZA==', 'YWJjZA', '61626364']));
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
    expect(seen).toEqual(expect.arrayContaining(['TOK3N-VALUE', 'tok3n-value', Buffer.from('tok3n-Value').toString('hex')]));
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
