// The demo single-page app: a public client doing the authorization-code flow with PKCE
// (RFC 7636) entirely in the browser, as a browser-based app would (no secret, no backend).
// The token request is a cross-origin POST: it works because the authorization server
// answers CORS for this origin, which it derives from the client's registered redirect URI.
"use strict";

const root = document.getElementById("spa");
const config = JSON.parse(root.dataset.config);
const KEY = "authgate-demo-spa:" + config.client_id;

function b64url(bytes) {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function random(n) {
  return b64url(crypto.getRandomValues(new Uint8Array(n)));
}

async function challengeOf(verifier) {
  return b64url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
}

function show(title, ...blocks) {
  const section = document.createElement("section");
  section.className = "step";
  const h2 = document.createElement("h2");
  h2.textContent = title;
  section.append(h2);
  for (const block of blocks) {
    const pre = document.createElement("pre");
    pre.textContent = typeof block === "string" ? block : JSON.stringify(block, null, 2);
    section.append(pre);
  }
  root.append(section);
  return section;
}

async function start() {
  const verifier = random(48);
  const state = random(24);
  sessionStorage.setItem(KEY, JSON.stringify({ verifier, state }));
  const url = new URL(config.issuer + "/oauth/authorize");
  url.search = new URLSearchParams({
    response_type: "code", client_id: config.client_id, redirect_uri: config.redirect_uri,
    state, code_challenge: await challengeOf(verifier), code_challenge_method: "S256",
  }).toString();
  location.assign(url.toString());
}

function claimsOf(jwt) {
  const part = jwt.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
  return JSON.parse(atob(part + "=".repeat((4 - (part.length % 4)) % 4)));
}

async function finish(params) {
  const saved = JSON.parse(sessionStorage.getItem(KEY) || "null");
  sessionStorage.removeItem(KEY);
  // The code must not stay in the address bar or the history.
  history.replaceState(null, "", location.pathname);
  if (!saved || params.get("state") !== saved.state) {
    show("This sign-in was not started here", "The state does not match (RFC 6749 10.12).");
    return;
  }
  if (params.get("iss") !== config.issuer) {
    show("Response from an unexpected issuer", String(params.get("iss")));
    return;
  }
  if (params.has("error")) {
    show("The authorization server answered " + params.get("error"), params.get("error_description") || "");
    return;
  }
  show("1. The code came back", "code=" + params.get("code").slice(0, 8) + "…, state and issuer match");
  const response = await fetch(config.issuer + "/oauth/token", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
    body: new URLSearchParams({
      grant_type: "authorization_code", code: params.get("code"), redirect_uri: config.redirect_uri,
      code_verifier: saved.verifier, client_id: config.client_id,
    }),
  });
  const tokens = await response.json();
  show("2. Code exchanged in the browser (cross-origin POST): HTTP " + response.status, tokens);
  if (response.ok) {
    show("The access token's claims (decoded here, verified by the API)", claimsOf(tokens.access_token));
    show("3. Call the API with it",
      "GET /charges is for servers (it needs the API key and sends no CORS headers):\n" +
      "curl -s " + (config.api_key ? "-H 'x-api-key: " + config.api_key + "' " : "") + "-H \"Authorization: Bearer $ACCESS_TOKEN\" " + config.issuer + "/charges");
    document.querySelector("main").dataset.flowDone = "true";
  }
}

const params = new URLSearchParams(location.search);
root.replaceChildren();
if (params.has("code") || params.has("error")) {
  finish(params).catch((error) => show("The exchange failed", String(error)));
} else {
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = "Sign in with " + config.client_id;
  button.addEventListener("click", () => { start().catch((error) => show("Could not start", String(error))); });
  const p = document.createElement("p");
  p.textContent = "A public client: PKCE and the token request run here, in your browser.";
  root.append(p, button);
}
