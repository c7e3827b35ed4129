"""Dynamic client registration (RFC 7591) and its management (RFC 7592), split as Authlib's rfc7591:

- `endpoint`: POST /oauth/register (RFC 7591 3), its limit per address and the deployment's pool;
- `management`: the client configuration endpoint, GET|PUT|DELETE /oauth/register/{client_id} (RFC 7592 2);
- `metadata`: the request's metadata checked into a Client, and the client information response
  (RFC 7591 2, 3.2.1);
- `errors`: what both answer when they refuse (RFC 7591 3.2.2, RFC 7592 3).

Off unless the deployment switches it on (template parameter DynamicClientRegistration). A
registered client is public (`none`) or `private_key_jwt` with `jwks`, under the same rules as a
Client ID Metadata Document (oauth.clients.stated_metadata); software statements are not supported
(RFC 7591 2.3 lets a server ignore them: they are refused here, so nobody relies on one).
Registration has its own limit per source address (limits.quota) and its own metric
(ClientRegistrations, http.metrics); the deployment caps how many unassigned registrations it
holds, a tenant how many it holds (stores.registrations, oauth.clients.registered). The
registration access token is shown once and stored hashed; it works only on its own client's
configuration URI (RFC 7592 3: anything else is invalid_token), and each update (PUT) replaces it
with a new one, returned once, the old one refused from then on.
"""
