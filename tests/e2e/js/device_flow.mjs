// The device authorization grant (RFC 8628) end to end, driven by panva's openid-client (built on
// oauth4webapi) on Node against `authgate serve`, as a public device client: discovery, the device
// authorization request, then the library's own polling (it honours `interval` and `slow_down`) until the
// person approves on the verification page, and the ID token validated by the library. Prints the device
// authorization response as the first line (the test approves it in Chromium), then one JSON object with
// the outcome; tests/e2e/test_device_flow.py asserts on both.
// Usage: ISSUER=... CLIENT_ID=... node device_flow.mjs
import * as client from "openid-client";

const out = {};
try {
  const config = await client.discovery(new URL(process.env.ISSUER), process.env.CLIENT_ID, undefined, client.None(),
    { execute: [client.allowInsecureRequests] });
  const meta = config.serverMetadata();
  out.discovery = { device_authorization_endpoint: meta.device_authorization_endpoint,
                    device_grant: meta.grant_types_supported.includes("urn:ietf:params:oauth:grant-type:device_code") };
  const started = await client.initiateDeviceAuthorization(config, { scope: "openid charges:read" });
  console.log(JSON.stringify(started));
  const began = Date.now();
  const tokens = await client.pollDeviceAuthorizationGrant(config, started);
  const claims = tokens.claims();
  out.tokens = { token_type: tokens.token_type, scope: tokens.scope, sub: claims.sub, acr: claims.acr,
                 has_sid: Boolean(claims.sid), has_refresh: Boolean(tokens.refresh_token),
                 waited_seconds: Math.round((Date.now() - began) / 1000) };
} catch (error) {
  out.error = { name: error.name, message: error.message, code: error.code ?? null, cause: error.cause ?? null };
}
console.log(JSON.stringify(out));
