// Signs the registry bearer tokens: ES256 JWTs whose x5c header carries the issuer's
// certificate. distribution v3 (registry/auth/token) verifies the x5c chain against the
// certificates of `auth.token.rootcertbundle`, then the signature with the leaf's key,
// then iss, aud, exp and nbf.
import { createPrivateKey, randomUUID, sign, X509Certificate, type KeyObject } from 'node:crypto';

/** One entry of the `access` claim: what a token allows on one resource. */
export interface TokenAccess {
  type: string;
  name: string;
  actions: string[];
}

export interface TokenClaims {
  issuer: string;
  subject: string;
  audience: string;
  access: TokenAccess[];
  /** Lifetime in seconds. */
  expiresIn: number;
}

export class TokenSigner {
  private readonly key: KeyObject;
  private readonly certificateDer: string;

  constructor(keyPem: string, certificatePem: string) {
    this.key = createPrivateKey(keyPem);
    if (this.key.asymmetricKeyType !== 'ec')
      throw new Error(`token signing key is ${this.key.asymmetricKeyType ?? 'unknown'}, expected an EC P-256 key`);
    this.certificateDer = new X509Certificate(certificatePem).raw.toString('base64');
  }

  /** Returns a compact JWS; `now` is in seconds since the epoch. */
  sign(claims: TokenClaims, now = Math.floor(Date.now() / 1000)): string {
    // x5c values are standard base64 of DER (RFC 7515 section 4.1.6), not base64url.
    const header = { alg: 'ES256', typ: 'JWT', x5c: [this.certificateDer] };
    const payload = {
      iss: claims.issuer,
      sub: claims.subject,
      aud: claims.audience,
      exp: now + claims.expiresIn,
      nbf: now - 1,
      iat: now,
      jti: randomUUID(),
      access: claims.access,
    };
    const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(payload))}`;
    // JWS ES256 wants the raw r||s signature, not DER.
    const signature = sign('sha256', Buffer.from(signingInput), { key: this.key, dsaEncoding: 'ieee-p1363' });
    return `${signingInput}.${signature.toString('base64url')}`;
  }
}

function base64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}
