import { describe, expect, it } from 'vitest';
import { applyStages, sortForApply, sortForDelete } from '../../../src/kube/ssa/apply-order.js';
import type { KubeObject } from '../../../src/kube/object.js';

const o = (apiVersion: string, kind: string, name: string, namespace?: string): KubeObject => ({
  apiVersion,
  kind,
  metadata: namespace ? { name, namespace } : { name },
});

const label = (object: KubeObject) =>
  `${object.kind}/${object.metadata.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata.name}`;

// Shuffled on purpose: the result must not depend on the input order.
const objects = [
  o('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', 'hook'),
  o('example.com/v1', 'Thing', 'b', 'apps'),
  o('apps/v1', 'Deployment', 'web', 'apps'),
  o('v1', 'Service', 'web', 'apps'),
  o('rbac.authorization.k8s.io/v1', 'RoleBinding', 'rb', 'apps'),
  o('networking.k8s.io/v1', 'IngressClass', 'nginx'),
  o('v1', 'ConfigMap', 'b', 'apps'),
  o('rbac.authorization.k8s.io/v1', 'Role', 'reader', 'apps'),
  o('batch/v1', 'Job', 'migrate', 'apps'),
  o('v1', 'Namespace', 'apps'),
  o('rbac.authorization.k8s.io/v1', 'ClusterRole', 'viewer'),
  o('example.com/v1', 'Thing', 'a', 'apps'),
  o('v1', 'ConfigMap', 'a', 'apps'),
  o('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'things.example.com'),
  o('admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration', 'mhook'),
  o('v1', 'ServiceAccount', 'web', 'apps'),
  o('v1', 'Secret', 'creds', 'apps'),
  o('apps/v1', 'StatefulSet', 'db', 'apps'),
  o('scheduling.k8s.io/v1', 'PriorityClass', 'high'),
];

describe('apply order', () => {
  it('sorts kinds as fluxcd ssa does, unknown kinds between the known first and last ones', () => {
    expect(sortForApply(objects).map(label)).toEqual([
      'CustomResourceDefinition/things.example.com',
      'Namespace/apps',
      'ClusterRole/viewer',
      'PriorityClass/high',
      'IngressClass/nginx',
      'ServiceAccount/apps/web',
      'Role/apps/reader',
      'RoleBinding/apps/rb',
      'ConfigMap/apps/a',
      'ConfigMap/apps/b',
      'Secret/apps/creds',
      'Service/apps/web',
      'Deployment/apps/web',
      'StatefulSet/apps/db',
      'Job/apps/migrate',
      'Thing/apps/a',
      'Thing/apps/b',
      'MutatingWebhookConfiguration/mhook',
      'ValidatingWebhookConfiguration/hook',
    ]);
    expect(sortForApply([...objects].reverse()).map(label)).toEqual(sortForApply(objects).map(label));
    expect(sortForDelete(objects).map(label)[0]).toBe('ValidatingWebhookConfiguration/hook');
  });

  it('orders unlisted kinds by group, then kind', () => {
    const sorted = sortForApply([
      o('b.example/v1', 'Alpha', 'x', 'n'),
      o('a.example/v1', 'Zulu', 'x', 'n'),
      o('a.example/v1', 'Beta', 'x', 'n'),
    ]);
    expect(sorted.map((x) => `${x.apiVersion}/${x.kind}`)).toEqual([
      'a.example/v1/Beta',
      'a.example/v1/Zulu',
      'b.example/v1/Alpha',
    ]);
  });

  it('splits an apply set into Timoni stages: definitions, classes, roles, the rest', () => {
    const stages = applyStages(objects);
    expect(stages.map((stage) => [stage.name, stage.waitAfter, stage.objects.map(label)])).toEqual([
      ['definitions', true, ['CustomResourceDefinition/things.example.com', 'Namespace/apps', 'ClusterRole/viewer']],
      ['classes', true, ['PriorityClass/high', 'IngressClass/nginx']],
      ['roles', false, ['Role/apps/reader']],
      [
        'resources',
        false,
        [
          'ServiceAccount/apps/web',
          'RoleBinding/apps/rb',
          'ConfigMap/apps/a',
          'ConfigMap/apps/b',
          'Secret/apps/creds',
          'Service/apps/web',
          'Deployment/apps/web',
          'StatefulSet/apps/db',
          'Job/apps/migrate',
          'Thing/apps/a',
          'Thing/apps/b',
          'MutatingWebhookConfiguration/mhook',
          'ValidatingWebhookConfiguration/hook',
        ],
      ],
    ]);
    expect(applyStages([o('v1', 'ConfigMap', 'only', 'x')]).map((stage) => stage.name)).toEqual(['resources']);
    // A kind named like a class but in another group still goes with the classes; a Role of another group does not.
    expect(applyStages([o('example.com/v1', 'Role', 'r', 'x')]).map((stage) => stage.name)).toEqual(['resources']);
  });
});
