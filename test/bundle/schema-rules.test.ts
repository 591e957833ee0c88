// The bundle schema's errors in plain words: no schema file, no regular expression.
import { describe, expect, it } from 'vitest';
import { inPlainWords, schemaRule } from '../../src/bundle/schema-rules.js';

const SCHEMA = 'timoni-fleet.bundle-schema.cue';
const user = { file: 'bundle.cue', line: 16, column: 14 };
const schema = { file: SCHEMA, line: 8, column: 22 };

describe('inPlainWords', () => {
  it('says what a module URL must be instead of the regular expression, and points at the user line only', () => {
    const plain = inPlainWords(
      {
        path: 'bundle.instances.web.module.url',
        message: 'invalid value "https://x" (out of bound =~"^(oci|file)://.*$")',
        positions: [user, schema],
      },
      SCHEMA,
    );
    expect(plain).toEqual({
      path: 'bundle.instances.web.module.url',
      message: 'invalid value "https://x": the module URL must be a string starting with oci:// or file://',
      positions: [user],
    });
  });

  it('names the fields a closed struct of the schema allows, also when CUE names only the user line', () => {
    expect(
      inPlainWords({ path: 'bundle.instaces', message: 'field not allowed', positions: [user] }, SCHEMA).message,
    ).toBe('field not allowed: a bundle has the fields apiVersion, name and instances');
    expect(
      inPlainWords(
        { path: 'bundle.instances."my.app".module.tag', message: 'field not allowed', positions: [user] },
        SCHEMA,
      ).message,
    ).toMatch(/^field not allowed: module has the fields url, version/);
  });

  it("leaves the user's own errors alone: values are open, a field refused there is the user's definition", () => {
    const own = { path: 'bundle.instances.web.values.replcas', message: 'field not allowed', positions: [user] };
    expect(inPlainWords(own, SCHEMA)).toBe(own);
    const conflict = { path: 'bundle._registry', message: 'conflicting values "a" and "b"', positions: [user] };
    expect(inPlainWords(conflict, SCHEMA)).toBe(conflict);
  });

  it("a wrong type keeps CUE's words and adds the rule", () => {
    const plain = inPlainWords(
      {
        path: 'bundle.instances.web.namespace',
        message: 'conflicting values 3 and string (mismatched types int and string)',
        positions: [user, schema],
      },
      SCHEMA,
    );
    expect(plain.message).toMatch(
      /^conflicting values 3 and string \(mismatched types int and string\): the namespace must be a lowercase name of 1 to 63 characters/,
    );
    expect(plain.positions).toEqual([user]);
  });
});

describe('schemaRule', () => {
  it('matches any instance name, quoted or not, and nothing deeper than the schema goes', () => {
    expect(schemaRule('bundle.instances."a.b".namespace')).toMatch(/^the namespace must be/);
    expect(schemaRule('bundle.instances.web.values.replicas')).toBeUndefined();
    expect(schemaRule('bundle.apiVersion')).toBe('apiVersion must be "v1alpha1"');
  });
});
