// Readiness in the reports: the kstatus result the rollout recorded on an applied object.
import { READINESS_STATUSES, type ObjectChange, type ObjectReadiness, type ReadinessStatus } from '../changeset.js';

/** The readiness result of a change, when the ChangeSet carries a well-formed one. */
export function readinessOf(change: ObjectChange): ObjectReadiness | undefined {
  const candidate: unknown = change.readiness;
  if (candidate === null || typeof candidate !== 'object') return undefined;
  const { status, message, durationMs } = candidate as Record<string, unknown>;
  if (typeof status !== 'string' || !(READINESS_STATUSES as readonly string[]).includes(status)) return undefined;
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
