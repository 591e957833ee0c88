// The values runtime attributes receive for one cluster: merged in Timoni's order, each
// remembering where it came from and whether reports must hide it.
import { describe, expect, it } from 'vitest';
import { mergeRuntimeValues, plainValues } from '../../src/bundle/runtime.js';

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

  it('marks as secret what came from a cluster Secret and the environment credentials, not every environment value', () => {
    const values = mergeRuntimeValues(
      staging,
      {
        DEMO_REGISTRY: '127.0.0.1:5000',
        REGION: 'eu-west-1',
        DB_PASSWORD: 'hunter2-db',
        NPM_TOKEN: 'npm_abc123',
        DATABASE_URL: 'postgres://app:hunter3@db.internal:5432/app',
        GITHUB_HEAD_REF: 'https://a:b@evil.example',
      },
      [{ name: 'REDIS_PASS', value: 'p4ss:w0rd', secret: true }],
    );
    const secret = [...values].filter(([, value]) => value.secret).map(([name]) => name);
    expect(secret).toEqual(['DB_PASSWORD', 'NPM_TOKEN', 'DATABASE_URL', 'REDIS_PASS']);
    expect(values.get('DEMO_REGISTRY')).toEqual({ value: '127.0.0.1:5000', secret: false, source: 'environment' });
  });
});
