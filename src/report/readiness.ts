// Readiness results, which the ChangeSet does not carry yet.
//
// Proposed addition to `ObjectChange` in src/fleet/changeset.ts (the report reads it when
// present and renders nothing for it when absent):
//
//   /** The result of waiting for the object after apply (kstatus), when waited for. */
//   readiness?: { status: 'Current' | 'InProgress' | 'Failed' | 'Terminating' | 'NotFound' | 'Unknown';
//                 message: string; durationMs?: number };
//
// The status names are kstatus's, which Timoni's `--wait` prints (`Deployment/apps/podinfo
// Current - Resource is Ready`).

import type { ObjectChange } from '../fleet/changeset.js';

export type ReadinessStatus = 'Current' | 'InProgress' | 'Failed' | 'Terminating' | 'NotFound' | 'Unknown';

export interface ObjectReadiness {
  status: ReadinessStatus;
  message: string;
  durationMs?: number;
}

/** An ObjectChange with the proposed readiness field. */
export type ObjectChangeWithReadiness = ObjectChange & { readiness?: ObjectReadiness };

const STATUSES: readonly string[] = ['Current', 'InProgress', 'Failed', 'Terminating', 'NotFound', 'Unknown'];

/** The readiness result of a change, when the ChangeSet carries a well-formed one. */
export function readinessOf(change: ObjectChange): ObjectReadiness | undefined {
  const candidate: unknown = (change as ObjectChangeWithReadiness).readiness;
  if (candidate === null || typeof candidate !== 'object') return undefined;
  const { status, message, durationMs } = candidate as Record<string, unknown>;
  if (typeof status !== 'string' || !STATUSES.includes(status)) return undefined;
  return {
    status: status as ReadinessStatus,
    message: typeof message === 'string' ? message : '',
    ...(typeof durationMs === 'number' ? { durationMs } : {}),
  };
}

/** `✅ Current`, `❌ Failed`, `⏳ InProgress` … for a table cell (plain text, unescaped). */
export function readinessLabel(readiness: ObjectReadiness): string {
  const icon = readiness.status === 'Current' ? '✅' : readiness.status === 'InProgress' ? '⏳' : readiness.status === 'Unknown' ? '❔' : '❌';
  return `${icon} ${readiness.status}`;
}
