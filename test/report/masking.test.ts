import { describe, expect, it } from 'vitest';
import { containsSecret, MASK, maskableValues, maskSecrets, MIN_SECRET_LENGTH } from '../../src/report/masking.js';
import { changeSetChangesSecret, diffChangesSecret } from '../../src/report/secret-change.js';
import { changeSet, cluster, instance, objectChange } from './fixtures.js';

describe('maskSecrets', () => {
  it('replaces every occurrence of each secret', () => {
    expect(maskSecrets('token=s3cr3t-token and again s3cr3t-token', ['s3cr3t-token'])).toBe(`token=${MASK} and again ${MASK}`);
  });

  it('masks the longest secret first, leaving no fragment of it', () => {
    const masked = maskSecrets('password: hunter2-extended', ['hunter2', 'hunter2-extended']);
    expect(masked).toBe(`password: ${MASK}`);
  });

  it(`ignores empty, blank and values shorter than ${MIN_SECRET_LENGTH} characters`, () => {
    expect(maskableValues(['', '   ', 'on', 'abc', 'abcd'])).toEqual(['YWJjZA==', 'abcd']);
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

describe('secret changes', () => {
  it('recognises the engine masks on changed lines', () => {
    expect(diffChangesSecret('--- live\n+++ desired\n-  password: *** (before)\n+  password: *** (after)\n')).toBe(true);
    expect(diffChangesSecret('--- live\n+++ desired\n+  token: ***\n')).toBe(true);
  });

  it('ignores masks on context lines and ordinary asterisks', () => {
    expect(diffChangesSecret('--- live\n+++ desired\n   password: ***\n-  replicas: 1\n+  replicas: 2\n')).toBe(false);
    expect(diffChangesSecret('+  note: "***important***"\n')).toBe(false);
  });

  it('recognises a listed secret value on a changed line', () => {
    expect(diffChangesSecret('+  DATABASE_URL: postgres://u:pa55word@db\n', ['pa55word'])).toBe(true);
    expect(diffChangesSecret('   DATABASE_URL: postgres://u:pa55word@db\n', ['pa55word'])).toBe(false);
  });

  it('finds a secret change anywhere in a ChangeSet, but not in unchanged objects', () => {
    const secretDiff = '-  password: *** (before)\n+  password: *** (after)\n';
    const changing = changeSet([cluster('c1', 'g', [instance('app', [objectChange({ kind: 'Secret', name: 'db', action: 'configured', diff: secretDiff })])])]);
    const idle = changeSet([cluster('c1', 'g', [instance('app', [objectChange({ kind: 'Secret', name: 'db', action: 'unchanged', diff: secretDiff })])])]);
    expect(changeSetChangesSecret(changing)).toBe(true);
    expect(changeSetChangesSecret(idle)).toBe(false);
  });
});
