// Errors of the Kubernetes engine: each names the cluster and, when there is one, the object.
import { formatRef, isRecord, type ObjectRef } from './object.js';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** An answer of the API server with an error status (a `Status` object, usually). */
export class KubeApiError extends Error {
  override name = 'KubeApiError';
  constructor(
    readonly cluster: string,
    readonly status: number,
    /** `NotFound`, `Invalid`, `Conflict`, `Forbidden`... (the Status reason). */
    readonly reason: string,
    /** The Status message, as the server wrote it. */
    readonly statusMessage: string,
    readonly request: string,
    readonly object?: ObjectRef,
    readonly causes: StatusCause[] = [],
  ) {
    super(
      status === 401
        ? `cluster ${cluster}: ${request}: the API server rejected the kubeconfig's credentials for this cluster's context (401 Unauthorized)`
        : `cluster ${cluster}: ${object ? `${formatRef(object)}: ` : ''}${request} failed: ${statusMessage || `HTTP ${status}`}${reason ? ` (${reason})` : ''}`,
    );
  }

  get isNotFound(): boolean {
    return this.status === 404;
  }
}

/** The API server could not be reached, or did not answer in time. */
export class KubeConnectionError extends Error {
  override name = 'KubeConnectionError';
  constructor(
    readonly cluster: string,
    readonly server: string,
    readonly code: string,
    detail: string,
  ) {
    super(`cluster ${cluster}: cannot reach the API server at ${server}: ${detail}`);
  }
}

const connectionCodes: Record<string, string> = {
  ECONNREFUSED: 'connection refused (is the API server running?)',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the server certificate is self-signed and not trusted (certificate-authority missing?)',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the server certificate is not signed by the configured certificate authority',
  SELF_SIGNED_CERT_IN_CHAIN: 'the server certificate chain is not trusted by the configured certificate authority',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the server certificate does not match the server name (tls-server-name?)',
};

export function describeConnectionError(error: NodeJS.ErrnoException): { code: string; detail: string } {
  const code = error.code ?? 'UNKNOWN';
  return { code, detail: connectionCodes[code] ? `${connectionCodes[code]} [${code}]` : `${error.message} [${code}]` };
}

/** Reads a `Status` body into its message, reason and causes. */
export function parseStatus(body: string): { message: string; reason: string; causes: StatusCause[] } {
  try {
    const status: unknown = JSON.parse(body);
    if (isRecord(status)) {
      const details = isRecord(status.details) ? status.details : {};
      const causes = Array.isArray(details.causes) ? details.causes.filter(isRecord).map((cause) => ({
        reason: typeof cause.reason === 'string' ? cause.reason : undefined,
        message: typeof cause.message === 'string' ? cause.message : undefined,
        field: typeof cause.field === 'string' ? cause.field : undefined,
      })) : [];
      return {
        message: typeof status.message === 'string' ? status.message : '',
        reason: typeof status.reason === 'string' ? status.reason : '',
        causes,
      };
    }
  } catch {
    // not JSON: fall through
  }
  return { message: body.trim().slice(0, 300), reason: '', causes: [] };
}
