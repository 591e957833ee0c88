import { describe, expect, it } from 'vitest';
import { applyObject } from '../../../src/kube/ssa/apply.js';
import { diffObject } from '../../../src/kube/ssa/diff.js';
import { KubeApiError } from '../../../src/kube/connect/errors.js';
import {
  ImmutableFieldError,
  immutableFields,
  immutableReasons,
  isImmutableError,
} from '../../../src/kube/ssa/immutable.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { testNamespace } from '../../harness/fleet/test-context.js';
import { engineFleet } from '../support.js';

const apiError = (
  status: number,
  message: string,
  causes: Array<{ field?: string; message?: string; reason?: string }> = [],
) =>
  new KubeApiError(
    'c1',
    status,
    status === 422 ? 'Invalid' : 'Conflict',
    message,
    'PATCH /x',
    { apiVersion: 'batch/v1', kind: 'Job', namespace: 'n', name: 'j' },
    causes,
  );

describe('immutable-field errors', () => {
  it('recognises the API server phrasings, only in 422 answers', () => {
    expect(
      isImmutableError(
        apiError(422, 'Job.batch "j" is invalid: spec.template: Invalid value: {"a":1}: field is immutable'),
      ),
    ).toBe(true);
    expect(
      isImmutableError(
        apiError(422, 'x', [
          { field: 'spec.clusterIPs[0]', message: 'Invalid value: ["None"]: may not change once set' },
        ]),
      ),
    ).toBe(true);
    expect(
      isImmutableError(
        apiError(
          422,
          'StatefulSet.apps "db" is invalid: spec: Forbidden: updates to statefulset spec for fields other than \'replicas\' are forbidden',
        ),
      ),
    ).toBe(true);
    expect(
      isImmutableError(apiError(422, 'Widget "w" is invalid: spec.size: Invalid value: "string": Value is immutable')),
    ).toBe(true);
    expect(
      isImmutableError(apiError(422, 'ConfigMap "c" is invalid: data: Invalid value: "x": must be a string')),
    ).toBe(false);
    expect(isImmutableError(apiError(409, 'Operation cannot be fulfilled: field is immutable'))).toBe(false);
    expect(isImmutableError(new Error('field is immutable'))).toBe(false);
  });

  it('names the fields and the reasons without the values the server quotes', () => {
    const error = apiError(
      422,
      'Job.batch "j" is invalid: spec.template: Invalid value: {"env":"PASSWORD=hunter2"}: field is immutable',
      [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.template',
          message: 'Invalid value: {"env":"PASSWORD=hunter2"}: field is immutable',
        },
      ],
    );
    expect(immutableFields(error)).toEqual(['spec.template']);
    expect(immutableReasons(error)).toEqual(['spec.template: field is immutable']);
    const typed = new ImmutableFieldError(
      'c1',
      { apiVersion: 'batch/v1', kind: 'Job', namespace: 'n', name: 'j' },
      immutableFields(error),
      error,
    );
    expect(typed.message).toBe(
      'cluster c1: Job/n/j: immutable field spec.template changed; the object must be recreated (apply with force, or annotate it action.timoni.sh/force: enabled); the API server said: spec.template: field is immutable',
    );
    expect(typed.message).not.toContain('hunter2');
    const noCauses = apiError(
      422,
      'Job.batch "j" is invalid: spec.selector: Invalid value: {"x":"secret-ish"}: field is immutable',
    );
    expect(immutableFields(noCauses)).toEqual(['spec.selector']);
    expect(immutableReasons(noCauses)).toEqual(['spec.selector: field is immutable']);
  });
});

describe('immutable fields on the fleet', () => {
  it('recognises a Service clusterIP change as immutable', async () => {
    const { clusters } = engineFleet();
    const cluster = clusters[0]!;
    const ns = (await testNamespace(0, 'kube-service')).name;
    const service = (clusterIP?: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: ns },
      spec: { ...(clusterIP ? { clusterIP } : {}), selector: { app: 'web' }, ports: [{ port: 80 }] },
    });
    const created = await applyObject(cluster, service());
    const assigned = (created.object.spec as { clusterIP: string }).clusterIP;
    expect(assigned).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect((await diffObject(cluster, service())).action).toBe('unchanged');
    const last = Number(assigned.split('.')[3]);
    const other = [...assigned.split('.').slice(0, 3), String(last === 200 ? 201 : 200)].join('.');
    const change = await diffObject(cluster, service(other));
    expect(change.action).toBe('failed');
    expect(change.error).toMatch(/immutable fields? spec\.clusterIPs?/);
    // The field that changes, as live and desired have it.
    expect(change.diff).toContain(`-  clusterIP: ${assigned}\n+  clusterIP: ${other}`);
    const error = await applyObject(cluster, service(other)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImmutableFieldError);
    expect((error as ImmutableFieldError).fields.some((field) => field.startsWith('spec.clusterIP'))).toBe(true);
  });

  it('recognises a forbidden StatefulSet spec update as immutable', async () => {
    const { clusters } = engineFleet();
    const cluster = clusters[1]!;
    const ns = (await testNamespace(1, 'kube-statefulset')).name;
    const statefulSet = (size: string): KubeObject => ({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: ns },
      spec: {
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'postgres:17' }] } },
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } } },
          },
        ],
      },
    });
    expect((await applyObject(cluster, statefulSet('1Gi'))).action).toBe('created');
    const error = await applyObject(cluster, statefulSet('2Gi')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImmutableFieldError);
    expect((error as ImmutableFieldError).fields).toEqual(['spec']);
    expect((error as Error).message).toContain('Forbidden: updates to statefulset spec for fields other than');
  });
});
