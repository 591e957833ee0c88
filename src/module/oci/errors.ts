// The one error type of the OCI client. Its message names the module URL and what went
// wrong; `code` lets callers and tests tell the cases apart. Messages are built from
// values that are not secrets, and pass through the secret redactor before being thrown.

export type OciErrorCode =
  | 'invalid-reference'
  | 'not-found'
  | 'unauthorized'
  | 'denied'
  | 'digest-mismatch'
  | 'media-type'
  | 'too-large'
  | 'registry'
  | 'network'
  | 'credentials'
  | 'archive';

export class OciError extends Error {
  readonly code: OciErrorCode;
  /** The module URL (`oci://host/repo:tag` or `@digest`) the error concerns. */
  readonly url: string;
  /** The last HTTP status, when a response was received. */
  readonly status: number | undefined;

  constructor(code: OciErrorCode, url: string, message: string, status?: number) {
    super(`${url}: ${message}`);
    this.name = 'OciError';
    this.code = code;
    this.url = url;
    this.status = status;
  }
}
