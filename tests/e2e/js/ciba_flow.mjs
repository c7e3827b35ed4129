// OpenID Connect CIBA poll mode of demo-web, driven by panva's oauth4webapi on Node against `authgate serve`:
// MODE=start: discovery and the backchannel authentication request (login_hint bob, a binding message;
// SCOPE and DETAILS, RFC 9396 authorization_details as JSON, when given);
// MODE=poll AUTH_REQ_ID=...: one token request of the CIBA grant, its answer processed by the library
// (the ID token's claims checked; the granted authorization_details and, with DETAILS, the access token to
// spend them). Prints one JSON object; tests/e2e/test_ciba_e2e.py asserts on it.
import * as oauth from "oauth4webapi";

const issuer = new URL(process.env.ISSUER);
const options = { [oauth.allowInsecureRequests]: true }; // the local issuer is http://127.0.0.1
const client = { client_id: "demo-web" };
const clientAuth = oauth.ClientSecretBasic("demo-web-secret");

try {
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, options));
  if (process.env.MODE === "start") {
    const params = new URLSearchParams({ scope: process.env.SCOPE || "openid charges:read", login_hint: "bob",
      binding_message: "Order 7" });
    if (process.env.DETAILS) params.set("authorization_details", process.env.DETAILS);
    const started = await oauth.processBackchannelAuthenticationResponse(as, client,
      await oauth.backchannelAuthenticationRequest(as, client, clientAuth, params, options));
    console.log(JSON.stringify({ endpoint: as.backchannel_authentication_endpoint,
      modes: as.backchannel_token_delivery_modes_supported, auth_req_id: started.auth_req_id,
      expires_in: started.expires_in, interval: started.interval }));
  } else {
    const response = await oauth.backchannelAuthenticationGrantRequest(as, client, clientAuth,
      process.env.AUTH_REQ_ID, options);
    const tokens = await oauth.processBackchannelAuthenticationGrantResponse(as, client, response);
    const claims = oauth.getValidatedIdTokenClaims(tokens);
    const out = { token_type: tokens.token_type, scope: tokens.scope,
      has_refresh: Boolean(tokens.refresh_token), sub: claims.sub, acr: claims.acr, amr: claims.amr };
    if (tokens.authorization_details) {
      out.authorization_details = tokens.authorization_details;
      out.access_token = tokens.access_token;
    }
    console.log(JSON.stringify(out));
  }
} catch (error) {
  console.log(JSON.stringify({ error: error.code || error.name, message: error.message,
    cause: error.cause && (error.cause.error || String(error.cause)) }));
}
