// The official MCP TypeScript SDK (@modelcontextprotocol/sdk) as an MCP client app would use it:
// its Client, its StreamableHTTPClientTransport and its OAuth support (client/auth.js) against an
// MCP server protected by authgate (tests/e2e/test_mcp_clients.py runs this).
//
// The app's side is what every SDK user writes: an OAuthClientProvider (storage, the redirect to
// the authorization page, the code back). The person who signs in is the Python test: this script
// prints {"authorize": URL} on stdout and reads {"code", "state", "iss"} (or {"declined": true})
// on stdin; {"revoke": tokens} asks the test to revoke the grant. The last line is {"result": …}.
//
// Env: MCP_SERVER_URL, REDIRECT_URI, CLIENT_NAME, CLIENT_METADATA_URL (absent: dynamic registration).
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

const serverUrl = new URL(process.env.MCP_SERVER_URL);
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

async function ask(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
  const { value, done } = await lines.next();
  if (done) throw new Error('the test closed stdin');
  return JSON.parse(value);
}

class AppProvider {
  constructor() {
    this.client = undefined;
    this.stored = undefined;
    this.verifier = undefined;
    this.pending = undefined; // the redirect's query after sign-in
    this.clientMetadataUrl = process.env.CLIENT_METADATA_URL || undefined;
  }
  get redirectUrl() { return process.env.REDIRECT_URI; }
  get clientMetadata() {
    return { client_name: process.env.CLIENT_NAME, redirect_uris: [process.env.REDIRECT_URI],
             grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
             token_endpoint_auth_method: 'none' };
  }
  state() { this.expectedState = crypto.randomUUID(); return this.expectedState; }
  clientInformation() { return this.client; }
  saveClientInformation(info) { this.client = info; }
  tokens() { return this.stored; }
  saveTokens(tokens) { this.stored = tokens; }
  saveCodeVerifier(verifier) { this.verifier = verifier; }
  codeVerifier() { return this.verifier; }
  invalidateCredentials(what) {
    if (what === 'all' || what === 'tokens') this.stored = undefined;
    if (what === 'all' || what === 'client') this.client = undefined;
    if (what === 'all' || what === 'verifier') this.verifier = undefined;
  }
  async redirectToAuthorization(url) {
    const answer = await ask({ authorize: url.href });
    if (answer.declined) throw new Error('declined');
    if (answer.state !== this.expectedState) throw new Error(`state mismatch: ${answer.state}`);
    this.pending = answer;
  }
}

const exchanges = [];
async function recordingFetch(input, init = {}) {
  const response = await fetch(input, init);
  const url = String(input instanceof Request ? input.url : input);
  let form = {};
  if (init.body instanceof URLSearchParams) form = Object.fromEntries(init.body);
  else if (typeof init.body === 'string' && url.includes('/register')) form = JSON.parse(init.body);
  const entry = { method: init.method || 'GET', url: url.split('?')[0], status: response.status,
                  www_authenticate: response.headers.get('www-authenticate'), form };
  // The SDK keeps only what its schema knows (no RFC 7592 member): record what authgate sent.
  if (entry.method === 'POST' && new URL(url).pathname === '/oauth/register') entry.answer = await response.clone().json();
  exchanges.push(entry);
  return response;
}

const provider = new AppProvider();
const result = { steps: [] };

// The SDK's documented pattern: connect; on UnauthorizedError the user has been sent to sign in,
// so finish with the code (transport.finishAuth) and connect a fresh transport.
async function connected() {
  for (let attempt = 0; attempt < 3; attempt++) {
    const transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider, fetch: recordingFetch });
    const client = new Client({ name: 'authgate-e2e', version: '1.0.0' });
    try {
      await client.connect(transport);
      return client;
    } catch (error) {
      if (!(error instanceof UnauthorizedError) || !provider.pending) throw error;
      await transport.finishAuth(provider.pending.code);
      provider.pending = undefined;
    }
  }
  throw new Error('not connected after three attempts');
}

// A tool call; when the SDK sends the person to sign in (UnauthorizedError), finish and call again.
async function call(client, name, args) {
  try {
    return await client.callTool({ name, arguments: args });
  } catch (error) {
    if (!(error instanceof UnauthorizedError) || !provider.pending) throw error;
    await client.transport.finishAuth(provider.pending.code);
    provider.pending = undefined;
    return await client.callTool({ name, arguments: args });
  }
}

const text = (r) => r.content.map((c) => c.text ?? '').join(' ');

try {
  let client = await connected();
  const listed = await call(client, 'list_notes', {});
  result.steps.push('list_notes');
  result.list_notes = { is_error: Boolean(listed.isError), text: text(listed) };
  result.first_token = provider.stored;
  result.client = provider.client;

  // Step-up: the 403's scope challenge. SDK 1.32.2 answers it with auth(), which refreshes when a
  // refresh token is held (the refresh cannot widen the scope), then gives up on the same 403.
  try {
    const added = await call(client, 'add_note', { text: 'from the TypeScript SDK' });
    result.add_note_first = { is_error: Boolean(added.isError), text: text(added) };
  } catch (error) {
    result.add_note_first = { raised: error.constructor.name, code: error.code, message: String(error.message) };
    // The app's way round: forget the refresh token and ask the SDK for the challenged scopes.
    const challenge = [...exchanges].reverse().find((e) => e.status === 403);
    const scope = /scope="([^"]*)"/.exec(challenge.www_authenticate)[1];
    provider.stored = { ...provider.stored, refresh_token: undefined };
    const outcome = await auth(provider, { serverUrl, scope, fetchFn: recordingFetch });
    if (outcome !== 'REDIRECT' || !provider.pending) throw new Error(`step-up did not redirect: ${outcome}`);
    await auth(provider, { serverUrl, authorizationCode: provider.pending.code, fetchFn: recordingFetch });
    provider.pending = undefined;
    client = await connected();
    const added = await call(client, 'add_note', { text: 'from the TypeScript SDK' });
    result.add_note = { is_error: Boolean(added.isError), text: text(added) };
  }
  result.steps.push('add_note');
  result.stepped_up_token = provider.stored;

  // Refresh: auth() with a stored refresh token and no code refreshes (auth.js, "Handle token refresh").
  const refreshed = await auth(provider, { serverUrl, fetchFn: recordingFetch });
  result.refresh_outcome = refreshed;
  const again = await call(client, 'list_notes', {});
  result.steps.push('refresh');
  result.after_refresh = { is_error: Boolean(again.isError), text: text(again) };
  result.refreshed_token = provider.stored;

  await ask({ revoke: provider.stored });
  try {
    const refused = await call(client, 'list_notes', {});
    result.after_revocation = { is_error: Boolean(refused.isError), text: text(refused) };
  } catch (error) {
    result.after_revocation = { raised: error.constructor.name, message: String(error.message) };
  }
  result.steps.push('revoked');
} catch (error) {
  result.error = { raised: error.constructor.name, message: String(error.message), stack: error.stack };
}
result.exchanges = exchanges;
process.stdout.write(JSON.stringify({ result }) + '\n');
process.exit(0);
