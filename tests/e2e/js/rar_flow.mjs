// PAR + Rich Authorization Requests (RFC 9396) + the code flow, driven by panva's oauth4webapi on Node
// against `authgate serve`: demo-web pushes a request with `charge` authorization_details, alice signs in
// and approves (over plain HTTP, a cookie jar of one), the code is exchanged (oauth4webapi checks the
// echoed authorization_details, RFC 9396 7), then the charges API enforces them: one charge within, then
// a second refused. Prints one JSON object of what happened; tests/e2e/test_rar_e2e.py asserts on it.
// Usage: ISSUER=... API_KEY=... REDIRECT_URI=... DETAILS='[...]' node rar_flow.mjs
import * as oauth from "oauth4webapi";

import { signIn } from "./sign_in.mjs";

const issuer = new URL(process.env.ISSUER);
const redirectUri = process.env.REDIRECT_URI;
const apiKey = process.env.API_KEY;
const details = process.env.DETAILS;
const options = { [oauth.allowInsecureRequests]: true }; // the local issuer is http://127.0.0.1

const out = { steps: [] };
const step = (name, value) => { out.steps.push(name); if (value !== undefined) out[name] = value; };

try {
  const as = await oauth.processDiscoveryResponse(issuer,
    await oauth.discoveryRequest(issuer, { ...options, algorithm: "oauth2" }));
  step("discovery", { types: as.authorization_details_types_supported });

  const client = { client_id: "demo-web" };
  const clientAuth = oauth.ClientSecretBasic("demo-web-secret");
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const params = new URLSearchParams({
    response_type: "code", redirect_uri: redirectUri, scope: "charges:read charges:write", state,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier), code_challenge_method: "S256",
    authorization_details: details,
  });
  const pushed = await oauth.processPushedAuthorizationResponse(as, client,
    await oauth.pushedAuthorizationRequest(as, client, clientAuth, params, options));
  step("par", { expires_in: pushed.expires_in });

  const authorizeUrl = new URL(as.authorization_endpoint);
  authorizeUrl.search = new URLSearchParams({ client_id: client.client_id, request_uri: pushed.request_uri });
  const { html, location } = await signIn(authorizeUrl, as.authorization_endpoint);
  const shown = [...html.matchAll(/<ul class="details">\n<li>([^<]*)<\/li>/g)].map((m) => m[1]);
  const callback = oauth.validateAuthResponse(as, client, new URL(location), state);
  step("authorize", { shown });

  const tokens = await oauth.processAuthorizationCodeResponse(as, client,
    await oauth.authorizationCodeGrantRequest(as, client, clientAuth, callback, redirectUri, codeVerifier, options));
  step("token", { authorization_details: tokens.authorization_details, has_refresh: Boolean(tokens.refresh_token) });

  const refreshed = await oauth.processRefreshTokenResponse(as, client,
    await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token, options));
  step("refresh", { authorization_details: refreshed.authorization_details });

  const charges = new URL("/charges", issuer);
  const charge = async (token, amount, currency) => {
    const response = await oauth.protectedResourceRequest(token, "POST", charges,
      new Headers({ "x-api-key": apiKey, "content-type": "application/json" }),
      JSON.stringify({ amount, currency }), options);
    return { status: response.status, body: await response.json() };
  };
  step("beyond_amount", await charge(tokens.access_token, 1251, "usd"));
  step("other_currency", await charge(tokens.access_token, 100, "eur"));
  step("within", await charge(tokens.access_token, 1250, "usd"));
  // The refreshed token is of the same grant: its one charge is spent.
  step("again", await charge(refreshed.access_token, 1, "usd"));
} catch (error) {
  out.error = { name: error.name, message: error.message, code: error.code, cause: error.cause?.body ?? String(error.cause ?? "") };
}
console.log(JSON.stringify(out));
