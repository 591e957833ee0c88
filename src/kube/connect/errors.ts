// Errors of the Kubernetes engine: each names the cluster and, when there is one, the object.
import { formatRef, isRecord, type ObjectRef } from '../object.js';
import { formatDuration } from '../../duration.js';

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

/**
 * How far an attempt got before it failed: no connection (`connecting`, which includes
 * waiting for a free one), the TCP connection accepted but the TLS handshake unfinished
 * (`handshake`), the request sent and no answer (`sent`), or an answer begun and not finished
 * (`answering`). From `handshake` on, the server is reachable: something else is wrong (a
 * hung API server, its etcd stopped) and the message says so.
 */
export type ConnectionPhase = 'connecting' | 'handshake' | 'sent' | 'answering';

export interface ConnectionFailureContext {
  /** The request, as errors name it: `GET /version`, `server-side apply /apis/...`. */
  request?: string;
  object?: ObjectRef;
  phase?: ConnectionPhase;
  /** The time limit that ran out, for ETIMEDOUT. */
  timeoutMs?: number;
  /** Attempts made (retries included) and the time they took, when there was more than one. */
  attempts?: number;
  spentMs?: number;
}

const phaseTimeouts: Record<Exclude<ConnectionPhase, 'connecting'>, string> = {
  handshake: 'the TLS handshake did not finish',
  sent: 'sent no answer',
  answering: 'did not finish its answer',
};

/**
 * The API server could not be reached, or did not answer in time. An API server that
 * accepted the connection and then said nothing is not "unreachable": the message names
 * the request it did not answer, and how far it got.
 */
export class KubeConnectionError extends Error {
  override name = 'KubeConnectionError';
  readonly request?: string;
  readonly phase?: ConnectionPhase;
  constructor(
    readonly cluster: string,
    readonly server: string,
    readonly code: string,
    detail: string,
    context: ConnectionFailureContext = {},
  ) {
    super(connectionMessage(cluster, server, code, detail, context));
    this.request = context.request;
    this.phase = context.phase;
  }

  /** True when the server accepted the TCP connection (it runs, but did not answer in time). */
  get accepted(): boolean {
    return this.phase !== undefined && this.phase !== 'connecting';
  }
}

function connectionMessage(
  cluster: string,
  server: string,
  code: string,
  detail: string,
  context: ConnectionFailureContext,
): string {
  const { phase, request, timeoutMs, attempts = 1 } = context;
  const tries = attempts > 1 ? `${attempts} attempts over ${formatDuration(context.spentMs ?? 0)}` : '';
  if (code === 'ETIMEDOUT' && phase && phase !== 'connecting' && request) {
    const object = context.object ? `${formatRef(context.object)}: ` : '';
    const within = timeoutMs !== undefined ? ` within ${formatDuration(timeoutMs)}` : '';
    return `cluster ${cluster}: ${object}${request}: the API server at ${server} accepted the connection but ${phaseTimeouts[phase]}${within} [${code}]${tries ? ` (${tries})` : ''}`;
  }
  const text =
    code === 'ETIMEDOUT' && timeoutMs !== undefined
      ? `no connection within ${formatDuration(timeoutMs)} [ETIMEDOUT]`
      : detail;
  const retried = tries ? ` (${request ? `${request}: ` : ''}${tries})` : '';
  return `cluster ${cluster}: cannot reach the API server at ${server}: ${text}${retried}`;
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
      const causes = Array.isArray(details.causes)
        ? details.causes.filter(isRecord).map((cause) => ({
            reason: typeof cause.reason === 'string' ? cause.reason : undefined,
            message: typeof cause.message === 'string' ? cause.message : undefined,
            field: typeof cause.field === 'string' ? cause.field : undefined,
          }))
        : [];
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
