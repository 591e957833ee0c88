import { describe, expect, it } from 'vitest';
import { KubeApiError } from '../../src/kube/errors.js';
import { ImmutableFieldError, immutableFields, immutableReasons, isImmutableError } from '../../src/kube/immutable.js';

const apiError = (status: number, message: string, causes: Array<{ field?: string; message?: string; reason?: string }> = []) =>
  new KubeApiError('c1', status, status === 422 ? 'Invalid' : 'Conflict', message, 'PATCH /x', { apiVersion: 'batch/v1', kind: 'Job', namespace: 'n', name: 'j' }, causes);

describe('immutable-field errors', () => {
  it('recognises the API server phrasings, only in 422 answers', () => {
    expect(isImmutableError(apiError(422, 'Job.batch "j" is invalid: spec.template: Invalid value: {"a":1}: field is immutable'))).toBe(true);
    expect(isImmutableError(apiError(422, 'x', [{ field: 'spec.clusterIPs[0]', message: 'Invalid value: ["None"]: may not change once set' }]))).toBe(true);
    expect(isImmutableError(apiError(422, 'StatefulSet.apps "db" is invalid: spec: Forbidden: updates to statefulset spec for fields other than \'replicas\' are forbidden'))).toBe(true);
    expect(isImmutableError(apiError(422, 'Widget "w" is invalid: spec.size: Invalid value: "string": Value is immutable'))).toBe(true);
    expect(isImmutableError(apiError(422, 'ConfigMap "c" is invalid: data: Invalid value: "x": must be a string'))).toBe(false);
    expect(isImmutableError(apiError(409, 'Operation cannot be fulfilled: field is immutable'))).toBe(false);
    expect(isImmutableError(new Error('field is immutable'))).toBe(false);
  });

  it('names the fields and the reasons without the values the server quotes', () => {
    const error = apiError(422, 'Job.batch "j" is invalid: spec.template: Invalid value: {"env":"PASSWORD=hunter2"}: field is immutable', [
      { reason: 'FieldValueInvalid', field: 'spec.template', message: 'Invalid value: {"env":"PASSWORD=hunter2"}: field is immutable' },
    ]);
    expect(immutableFields(error)).toEqual(['spec.template']);
    expect(immutableReasons(error)).toEqual(['spec.template: field is immutable']);
    const typed = new ImmutableFieldError('c1', { apiVersion: 'batch/v1', kind: 'Job', namespace: 'n', name: 'j' }, immutableFields(error), error);
    expect(typed.message).toBe(
      'cluster c1: Job/n/j: immutable field spec.template changed; the object must be recreated (apply with force, or annotate it action.timoni.sh/force: enabled); the API server said: spec.template: field is immutable',
    );
    expect(typed.message).not.toContain('hunter2');
    const noCauses = apiError(422, 'Job.batch "j" is invalid: spec.selector: Invalid value: {"x":"secret-ish"}: field is immutable');
    expect(immutableFields(noCauses)).toEqual(['spec.selector']);
    expect(immutableReasons(noCauses)).toEqual(['spec.selector: field is immutable']);
  });
});
