import { describe, expect, it } from 'vitest';
import { NoClusterMatchesError, selectClusters } from '../../src/bundle/cluster-selection.js';
import type { Runtime } from '../../src/bundle/types.js';

const runtime: Runtime = {
  name: 'fleet',
  isDefault: false,
  queries: [],
  clusters: [
    { name: 'preview-eu-1', group: 'staging', kubeContext: 'eks-eu-west-2' },
    { name: 'preview-us-1', group: 'staging', kubeContext: 'eks-us-west-2' },
    { name: 'prod-eu-1', group: 'production', kubeContext: 'eks-eu-west-1' },
    { name: 'prod-us-1', group: 'production', kubeContext: 'eks-us-west-1' },
  ],
};

const names = (selected: { name: string }[]) => selected.map((c) => c.name);

describe('selectClusters', () => {
  it('keeps every cluster in runtime order for * and empty selectors', () => {
    expect(names(selectClusters(runtime, { cluster: '*', group: '*' }))).toEqual(['preview-eu-1', 'preview-us-1', 'prod-eu-1', 'prod-us-1']);
    expect(names(selectClusters(runtime, { cluster: '', group: '' }))).toHaveLength(4);
    expect(names(selectClusters(runtime, {}))).toHaveLength(4);
  });

  it('selects a group case-insensitively, keeping order', () => {
    expect(names(selectClusters(runtime, { group: 'PRODUCTION' }))).toEqual(['prod-eu-1', 'prod-us-1']);
  });

  it('selects one cluster by name case-insensitively', () => {
    expect(names(selectClusters(runtime, { cluster: 'Preview-US-1' }))).toEqual(['preview-us-1']);
  });

  it('combines name and group', () => {
    expect(names(selectClusters(runtime, { cluster: 'prod-eu-1', group: 'production' }))).toEqual(['prod-eu-1']);
    expect(() => selectClusters(runtime, { cluster: 'prod-eu-1', group: 'staging' })).toThrow(NoClusterMatchesError);
  });

  it('names the selection and the known clusters when nothing matches', () => {
    expect(() => selectClusters(runtime, { group: 'qa' })).toThrow(/group "qa".*preview-eu-1 \(group staging\)/);
  });
});
