import { describe, expect, it } from 'vitest';
import { mergeRuntimeValues, plainValues } from '../../src/bundle/runtime-values.js';
import { decodeStrictBase64 } from '../../src/bundle/secret-decoding.js';

const staging = { name: 'preview-eu-1', group: 'staging', kubeContext: 'ctx' };
const defaultCluster = { name: '_default', group: '_default', kubeContext: '' };

describe('mergeRuntimeValues', () => {
  it('lets queries override the environment and cluster info override both', () => {
    const values = mergeRuntimeValues(
      staging,
      { REGION: 'env-region', TIMONI_CLUSTER_NAME: 'from-env', TOKEN: 'env-token' },
      [
        { name: 'REGION', value: 'queried-region', secret: false },
        { name: 'TIMONI_CLUSTER_GROUP', value: 'from-query', secret: false },
      ],
    );
    expect(plainValues(values)).toEqual({
      REGION: 'queried-region',
      TIMONI_CLUSTER_NAME: 'preview-eu-1',
      TIMONI_CLUSTER_GROUP: 'staging',
      TOKEN: 'env-token',
    });
    expect(values.get('TOKEN')).toMatchObject({ secret: true, source: 'environment' });
    expect(values.get('REGION')).toMatchObject({ secret: false, source: 'query' });
    expect(values.get('TIMONI_CLUSTER_NAME')).toMatchObject({ secret: false, source: 'cluster' });
  });

  it('gives the default cluster no name or group values', () => {
    const values = mergeRuntimeValues(defaultCluster, undefined, []);
    expect(values.size).toBe(0);
  });

  it('skips nothing from the environment but undefined entries', () => {
    const values = mergeRuntimeValues(defaultCluster, { EMPTY: '', MISSING: undefined }, []);
    expect(plainValues(values)).toEqual({ EMPTY: '' });
  });
});

describe('decodeStrictBase64', () => {
  it('decodes padded standard base64 as Go does', () => {
    expect(decodeStrictBase64('cGFzc3dvcmQ=')).toBe('password');
    expect(decodeStrictBase64('')).toBe('');
  });

  it('refuses what Go refuses, so the text is kept as it is', () => {
    expect(decodeStrictBase64('cGFzc3dvcmQ')).toBeUndefined();
    expect(decodeStrictBase64('not base64!')).toBeUndefined();
    expect(decodeStrictBase64('cGFz-3dvcmQ=')).toBeUndefined();
  });
});
