// OpenID Connect end to end, driven by panva's openid-client (an OpenID-certified relying party) on Node
// against `authgate serve`, as demo-web: discovery, the code flow with PKCE and nonce, the ID token
// validated by the library (signature included: enableNonRepudiationChecks), userinfo, a refresh with a
// new ID token, a prompt=none silent re-authentication with the session cookie, RP-initiated logout, and
// prompt=none again, which must now be login_required. The person's sign-in is plain HTTP (Node's
// fetch, a cookie jar). Prints one JSON object; tests/e2e/test_oidc_clients.py asserts on it.
// Usage: ISSUER=... REDIRECT_URI=... LOGOUT_URI=... node oidc_flow.mjs
import * as client from "openid-client";

const issuer = new URL(process.env.ISSUER);
const redirectUri = process.env.REDIRECT_URI;
const logoutUri = process.env.LOGOUT_URI;
const out = { steps: [] };
const step = (name, value) => { out.steps.push(name); if (value !== undefined) out[name] = value; };
const jar = new Map();

async function browse(url, init = {}) {
  const headers = { accept: "text/html", ...(init.headers || {}) };
  if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const response = await fetch(url, { ...init, headers, redirect: "manual" });
  for (const set of response.headers.getSetCookie()) {
    const [pair] = set.split(";");
    const at = pair.indexOf("=");
    const [name, value] = [pair.slice(0, at), pair.slice(at + 1)];
    if (value === "" || /Max-Age=0/.test(set)) jar.delete(name); else jar.set(name, value);
  }
  return response;
}

async function authorizationUrl(config, extra = {}) {
  const verifier = client.randomPKCECodeVerifier();
  const nonce = client.randomNonce();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri, scope: "openid profile email offline_access charges:read", nonce, state,
    code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256", ...extra,
  });
  return { url, checks: { pkceCodeVerifier: verifier, expectedNonce: nonce, expectedState: state } };
}

try {
  const config = await client.discovery(issuer, "demo-web", { redirect_uris: [redirectUri] },
    client.ClientSecretPost("demo-web-secret"), { execute: [client.allowInsecureRequests] });
  client.enableNonRepudiationChecks(config);
  const meta = config.serverMetadata();
  step("discovery", { issuer: meta.issuer, userinfo: meta.userinfo_endpoint, end_session: meta.end_session_endpoint });

  // The person signs in on the page and approves.
  const first = await authorizationUrl(config);
  const page = await browse(first.url);
  const html = await page.text();
  if (page.status !== 200) throw new Error(`authorize page ${page.status}: ${html.slice(0, 300)}`);
  const form = new URLSearchParams();
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) {
    form.set(name, value.replaceAll("&amp;", "&").replaceAll("&quot;", '"').replaceAll("&#x27;", "'")
      .replaceAll("&lt;", "<").replaceAll("&gt;", ">"));
  }
  form.set("username", "alice"); form.set("password", "alice-password"); form.set("decision", "approve");
  const submitted = await browse(meta.authorization_endpoint, { method: "POST", body: form,
    headers: { "content-type": "application/x-www-form-urlencoded" } });
  if (submitted.status !== 303) throw new Error(`sign-in answered ${submitted.status}`);
  const tokens = await client.authorizationCodeGrant(config, new URL(submitted.headers.get("location")), first.checks);
  const claims = tokens.claims();
  step("code", { sub: claims.sub, nonce_checked: claims.nonce === first.checks.expectedNonce, acr: claims.acr,
                 amr: claims.amr, has_sid: Boolean(claims.sid), has_refresh: Boolean(tokens.refresh_token),
                 session_cookie: jar.has("authgate_session") });

  const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
  step("userinfo", info);

  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token);
  const again = refreshed.claims();
  step("refresh", { same_sub: again.sub === claims.sub, same_auth_time: again.auth_time === claims.auth_time,
                    nonce: again.nonce ?? null });

  // Silent re-authentication: the session cookie, no page.
  const silent = await authorizationUrl(config, { prompt: "none" });
  const answer = await browse(silent.url);
  if (answer.status !== 302) throw new Error(`prompt=none answered ${answer.status}`);
  const quiet = await client.authorizationCodeGrant(config, new URL(answer.headers.get("location")), silent.checks);
  step("silent", { same_sid: quiet.claims().sid === claims.sid, same_auth_time: quiet.claims().auth_time === claims.auth_time });

  // RP-initiated logout with the ID token as the hint.
  const logoutState = client.randomState();
  const bye = await browse(client.buildEndSessionUrl(config, { id_token_hint: tokens.id_token,
    post_logout_redirect_uri: logoutUri, state: logoutState }));
  step("logout", { status: bye.status, location: bye.headers.get("location") === `${logoutUri}?state=${logoutState}`,
                   session_cookie: jar.has("authgate_session") });

  const after = await authorizationUrl(config, { prompt: "none" });
  const refused = await browse(after.url);
  try {
    await client.authorizationCodeGrant(config, new URL(refused.headers.get("location")), after.checks);
    step("after_logout", { error: null });
  } catch (error) {
    step("after_logout", { error: error.error ?? error.code ?? error.message });
  }
} catch (error) {
  out.error = { name: error.name, message: error.message, code: error.code, cause: String(error.cause ?? "") };
}
console.log(JSON.stringify(out));
