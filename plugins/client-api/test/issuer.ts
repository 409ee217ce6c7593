import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';

type Key = Awaited<ReturnType<typeof generateKeyPair>>;

/**
 * A real local identity provider: node:http serving the OpenID discovery document and a JWKS, and
 * tokens signed with jose. `rotate()` replaces the published key (a new key id).
 */
export async function startIssuer() {
  let current: { kid: string; key: Key } = { kid: 'k1', key: await generateKeyPair('RS256') };
  let requests = 0;
  const server = http.createServer(async (req, res) => {
    requests++;
    const issuer = url;
    if (req.url === '/.well-known/openid-configuration') {
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks.json` }));
    }
    if (req.url === '/jwks.json') {
      const jwk = await exportJWK(current.key.publicKey);
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify({ keys: [{ ...jwk, kid: current.kid, alg: 'RS256', use: 'sig' }] }));
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /** A token from this issuer; `lifetime` seconds from `iat` (default now). */
  const token = async (
    claims: JWTPayload & { aud?: string },
    opts: { lifetime?: number; iat?: number; key?: Key; kid?: string; issuer?: string } = {},
  ) => {
    const iat = opts.iat ?? Math.floor(Date.now() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: opts.kid ?? current.kid })
      .setIssuer(opts.issuer ?? url)
      .setIssuedAt(iat)
      .setExpirationTime(iat + (opts.lifetime ?? 300))
      .sign((opts.key ?? current.key).privateKey);
  };

  /** Exactly these claims, signed with the current key (no claim added). */
  const sign = (claims: JWTPayload) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: current.kid }).sign(current.key.privateKey);

  return {
    url,
    token,
    sign,
    publicJwk: async () => ({ ...(await exportJWK(current.key.publicKey)), kid: current.kid }),
    requests: () => requests,
    async rotate() {
      current = { kid: `k${Date.now()}`, key: await generateKeyPair('RS256') };
    },
    otherKey: () => generateKeyPair('RS256'),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
