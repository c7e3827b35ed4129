// The FAPI 2.0 flow of demo-fapi, driven by panva's oauth4webapi on Node against `authgate serve`:
// discovery, PAR with private_key_jwt and DPoP, the person's sign-in and consent over plain HTTP
// (Node's fetch, a cookie jar of one), the code exchange with PKCE + DPoP, a refresh, then DPoP
// calls to /charges. Prints one JSON object of what happened; the Python test asserts on it
// (tests/e2e/test_fapi2_flow.py). Usage: ISSUER=... CLIENT_JWK='{...}' API_KEY=... node fapi2_flow.mjs
import * as oauth from "oauth4webapi";

import { signIn } from "./sign_in.mjs";

const issuer = new URL(process.env.ISSUER);
const privateJwk = JSON.parse(process.env.CLIENT_JWK);
const redirectUri = process.env.REDIRECT_URI;
const apiKey = process.env.API_KEY;
const options = { [oauth.allowInsecureRequests]: true }; // the local issuer is http://127.0.0.1

const out = { steps: [] };
const step = (name, value) => { out.steps.push(name); if (value !== undefined) out[name] = value; };

// Retry once when the server asks for a DPoP nonce (RFC 9449 8), as oauth4webapi documents.
async function withNonce(call) {
  try {
    return await call();
  } catch (error) {
    if (oauth.isDPoPNonceError(error)) { out.nonce_retries = (out.nonce_retries || 0) + 1; return await call(); }
    throw error;
  }
}

try {
  const as = await oauth.processDiscoveryResponse(issuer,
    await oauth.discoveryRequest(issuer, { ...options, algorithm: "oauth2" }));
  step("discovery", { par: as.pushed_authorization_request_endpoint, require_par: as.require_pushed_authorization_requests });

  const { kty, crv, x, y, d } = privateJwk;
  const key = await crypto.subtle.importKey("jwk", { kty, crv, x, y, d }, { name: "ECDSA", namedCurve: "P-256" },
    false, ["sign"]);
  const client = { client_id: "demo-fapi" };
  const clientAuth = oauth.PrivateKeyJwt({ key, kid: privateJwk.kid });
  const dpopKeys = await oauth.generateKeyPair("ES256");
  const DPoP = oauth.DPoP(client, dpopKeys);

  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const params = new URLSearchParams({
    response_type: "code", redirect_uri: redirectUri, scope: "charges:read charges:write", state,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier), code_challenge_method: "S256",
  });
  const pushed = await withNonce(async () => oauth.processPushedAuthorizationResponse(as, client,
    await oauth.pushedAuthorizationRequest(as, client, clientAuth, params, { ...options, DPoP })));
  step("par", { request_uri_prefix: pushed.request_uri.split(":").slice(0, 5).join(":"), expires_in: pushed.expires_in });

  // The person's part: the authorization endpoint with client_id and request_uri only, the
  // sign-in form posted back with its hidden fields and the binding cookie.
  const authorizeUrl = new URL(as.authorization_endpoint);
  authorizeUrl.search = new URLSearchParams({ client_id: client.client_id, request_uri: pushed.request_uri });
  const { location } = await signIn(authorizeUrl, as.authorization_endpoint);
  const callback = oauth.validateAuthResponse(as, client, new URL(location), state); // state and iss (RFC 9207)
  step("authorize", { iss: new URL(location).searchParams.get("iss") });

  const tokens = await withNonce(async () => oauth.processAuthorizationCodeResponse(as, client,
    await oauth.authorizationCodeGrantRequest(as, client, clientAuth, callback, redirectUri, codeVerifier,
      { ...options, DPoP })));
  step("token", { token_type: tokens.token_type, scope: tokens.scope, has_refresh: Boolean(tokens.refresh_token) });

  const refreshed = await withNonce(async () => oauth.processRefreshTokenResponse(as, client,
    await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token, { ...options, DPoP })));
  // FAPI 2.0 5.3.2.1 item 9: no rotation, so the same refresh token serves again.
  const again = await withNonce(async () => oauth.processRefreshTokenResponse(as, client,
    await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token, { ...options, DPoP })));
  step("refresh", { token_type: refreshed.token_type, rotated: refreshed.refresh_token !== tokens.refresh_token,
                    again: again.token_type });

  const charges = new URL("/charges", issuer);
  const created = await withNonce(async () => oauth.protectedResourceRequest(refreshed.access_token, "POST", charges,
    new Headers({ "x-api-key": apiKey, "content-type": "application/json", "idempotency-key": oauth.generateRandomState() }),
    JSON.stringify({ amount: 1234, currency: "usd" }), { ...options, DPoP }));
  step("create_charge", { status: created.status, body: await created.json() });
  const listed = await withNonce(async () => oauth.protectedResourceRequest(refreshed.access_token, "GET",
    new URL("/charges?limit=5", issuer), new Headers({ "x-api-key": apiKey }), null, { ...options, DPoP }));
  step("list_charges", { status: listed.status });

  // The same token without its proof: a DPoP-bound token is not a bearer token (RFC 9449 7.1).
  const bare = await fetch(charges, { headers: { "x-api-key": apiKey, authorization: `Bearer ${refreshed.access_token}` } });
  step("bearer_fallback", { status: bare.status, www_authenticate: bare.headers.get("www-authenticate") });
} catch (error) {
  out.error = { name: error.name, message: error.message, code: error.code, cause: error.cause?.body ?? String(error.cause ?? "") };
}
console.log(JSON.stringify(out));
