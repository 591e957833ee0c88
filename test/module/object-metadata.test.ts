import { describe, expect, it } from 'vitest';
import { objectMetadataProblems } from '../../src/module/object-metadata.js';

const object = (metadata: Record<string, unknown>, kind = 'ConfigMap', apiVersion = 'v1') => ({
  apiVersion,
  kind,
  metadata,
});

describe('objectMetadataProblems', () => {
  it('accepts a valid object', () => {
    expect(
      objectMetadataProblems(
        object({
          name: 'app.config-1',
          namespace: 'apps',
          labels: { 'app.kubernetes.io/name': 'app' },
          annotations: { 'Example.com/Note': 'x' },
        }),
      ),
    ).toEqual([]);
  });

  it('lists missing required fields together', () => {
    expect(objectMetadataProblems({ metadata: {} })).toEqual([
      'missing required field(s) apiVersion, kind, metadata.name',
    ]);
  });

  it('checks names as DNS subdomains, RBAC names as path segments', () => {
    expect(objectMetadataProblems(object({ name: 'App_Config' }))[0]).toMatch(
      /^metadata.name "App_Config" must match regex/,
    );
    expect(
      objectMetadataProblems(object({ name: 'system:controller:x' }, 'ClusterRole', 'rbac.authorization.k8s.io/v1')),
    ).toEqual([]);
    expect(objectMetadataProblems(object({ name: 'a/b' }, 'Role', 'rbac.authorization.k8s.io/v1'))).toEqual([
      `metadata.name "a/b" may not contain '/'`,
    ]);
  });

  it('quotes names and keys as JSON, with line breaks, controls and invisible characters escaped', () => {
    const problems = objectMetadataProblems(
      object({ name: 'cm\n\u0085::stop-commands::t\u001b[31m', namespace: 'a\u2028b', labels: { 'k\u202e\r': 'v' } }),
    );
    expect(problems).toEqual([
      expect.stringMatching(/^metadata\.name "cm\\n\\u0085::stop-commands::t\\u001b\[31m" must match regex/),
      expect.stringMatching(/^metadata\.namespace "a\\u2028b" must match regex/),
      expect.stringMatching(/^metadata\.labels\["k\\u202e\\r"\] key name part must match regex/),
    ]);
    // eslint-disable-next-line no-control-regex -- control characters are what is looked for
    for (const problem of problems) expect(problem).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202e]/);
  });

  it('checks namespaces, label keys and values, annotation keys and size', () => {
    const problems = objectMetadataProblems(
      object({
        name: 'ok',
        namespace: 'Apps',
        labels: { 'bad key!': 'v', good: 'x'.repeat(64), number: 3 },
        annotations: { '/empty-prefix': 'v', big: 'y'.repeat(300 * 1024) },
      }),
    );
    expect(problems).toEqual([
      expect.stringMatching(/^metadata.namespace "Apps" must match regex/),
      expect.stringMatching(/^metadata.labels\["bad key!"\] key name part must match regex/),
      'metadata.labels["good"] value must be no more than 63 characters',
      'metadata.labels["number"] must be a string',
      'metadata.annotations["/empty-prefix"] key prefix part must be non-empty',
      'metadata.annotations total size must be at most 262144 bytes',
    ]);
  });
});
