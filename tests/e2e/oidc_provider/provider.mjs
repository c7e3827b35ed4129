// An upstream OpenID Provider for authgate's relying-party interop tests: panva's oidc-provider (the certified
// OpenID Provider), configured here and nowhere else. Started by tests/e2e/upstream_oidc_support.py with:
//   PORT, TLS_CERT, TLS_KEY            https on 127.0.0.1:PORT (issuer https://127.0.0.1:PORT)
//   CLIENTS                            JSON list of client registrations (client_id, client_secret, redirect_uris,
//                                      post_logout_redirect_uris, backchannel_logout_uri, ...)
//   NODE_EXTRA_CA_CERTS                the test CA, so back-channel logout calls trust the test receiver
// It prints "listening <issuer>" once it serves.
//
// Its own small interactions replace the development ones, so that each account signs in with its own assurance:
// GET /interaction/:uid shows a login form (field "login": the account id); POST it signs that account in with its
// acr and amr; consent is granted at once for what was asked. Accounts:
//   carol  carol@democorp.example, email verified
//   dave   dave@democorp.example, email NOT verified
//   erin   erin@democorp.example, email verified, signs in with a second factor (acr urn:democorp:mfa, amr pwd otp)
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

import Provider from 'oidc-provider';

const ACCOUNTS = {
  carol: { email: 'carol@democorp.example', email_verified: true, name: 'Carol Danvers', acr: 'urn:democorp:pwd', amr: ['pwd'] },
  dave: { email: 'dave@democorp.example', email_verified: false, name: 'Dave Unverified', acr: 'urn:democorp:pwd', amr: ['pwd'] },
  erin: { email: 'erin@democorp.example', email_verified: true, name: 'Erin Strong', acr: 'urn:democorp:mfa', amr: ['pwd', 'otp'] },
};

const port = Number(process.env.PORT);
const issuer = `https://127.0.0.1:${port}`;
const signing = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });

const provider = new Provider(issuer, {
  clients: JSON.parse(process.env.CLIENTS),
  pkce: { required: () => true },
  features: {
    devInteractions: { enabled: false },
    rpInitiatedLogout: { enabled: true },
    backchannelLogout: { enabled: true },
  },
  acrValues: ['urn:democorp:pwd', 'urn:democorp:mfa'],
  claims: {
    // acr, amr and auth_time in every ID token (not only when asked for with acr_values or the claims parameter).
    auth_time: null, sid: null, openid: ['sub', 'acr', 'amr', 'auth_time'], email: ['email', 'email_verified'], profile: ['name'],
  },
  jwks: { keys: [{ ...signing, kid: `op-${port}`, alg: 'RS256', use: 'sig' }] },
  cookies: { keys: ['authgate-interop-cookie-key'] },
  interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
  // Back-channel logout goes to the test's receiver on 127.0.0.1: oidc-provider refuses special-use addresses
  // through its own dispatcher, which this test-only provider leaves out (as authgate's local stack allows loopback).
  fetch: (url, options) => globalThis.fetch(url, { ...options, dispatcher: undefined }),
  async findAccount(ctx, id) {
    const account = ACCOUNTS[id];
    if (!account) return undefined;
    return {
      accountId: id,
      async claims() {
        return { sub: id, email: account.email, email_verified: account.email_verified, name: account.name };
      },
    };
  },
});

function form(req) {
  return new Promise((resolve, reject) => {
    let body = '';
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => resolve(Object.fromEntries(new URLSearchParams(body))));
    req.on('error', reject);
  });
}

async function grantConsent(ctx, details) {
  const { prompt, params, session, grantId } = details;
  const grant = grantId ? await provider.Grant.find(grantId)
    : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  if (prompt.details.missingOIDCScope) grant.addOIDCScope(prompt.details.missingOIDCScope.join(' '));
  if (prompt.details.missingOIDCClaims) grant.addOIDCClaims(prompt.details.missingOIDCClaims);
  return provider.interactionFinished(ctx.req, ctx.res, { consent: { grantId: await grant.save() } },
    { mergeWithLastSubmission: true });
}

provider.use(async (ctx, next) => {
  const match = ctx.path.match(/^\/interaction\/([\w-]+)$/);
  if (!match) return next();
  const details = await provider.interactionDetails(ctx.req, ctx.res);
  if (details.prompt.name === 'consent') return grantConsent(ctx, details);
  if (ctx.method === 'POST') {
    const { login } = await form(ctx.req);
    const account = ACCOUNTS[login];
    if (!account) {
      ctx.status = 400;
      ctx.body = 'unknown account';
      return undefined;
    }
    return provider.interactionFinished(ctx.req, ctx.res,
      { login: { accountId: login, acr: account.acr, amr: account.amr } }, { mergeWithLastSubmission: false });
  }
  ctx.type = 'html';
  ctx.body = `<!DOCTYPE html><title>Democorp sign-in</title><form method="post" action="/interaction/${match[1]}">`
    + '<input name="login" autofocus><button type="submit">Sign in</button></form>';
  return undefined;
});

for (const event of ['backchannel.error', 'server_error', 'grant.error']) {
  provider.on(event, (ctx, err) => console.log(`${event}: ${err?.message ?? ctx?.message} ${err?.cause ?? ""}`));
}

createServer({ cert: readFileSync(process.env.TLS_CERT), key: readFileSync(process.env.TLS_KEY) }, provider.callback())
  .listen(port, '127.0.0.1', () => console.log(`listening ${issuer}`));
