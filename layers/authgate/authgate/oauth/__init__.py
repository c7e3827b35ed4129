"""OAuth 2.0 authorization server (RFC 6749), grouped by flow.

- `authorization/`: GET|POST /oauth/authorize (RFC 6749 4.1) and POST /oauth/par (RFC 9126);
- `token/`: POST /oauth/token and its `grants/`, client authentication, DPoP at the token
  endpoint, POST /oauth/revoke (RFC 7009) and POST /oauth/introspect (RFC 7662);
- `clients/`: finding a client whatever its source (the lookup), what its profile demands,
  tenant policy, Client ID Metadata Documents and dynamic registration (RFC 7591, RFC 7592);
- `discovery/`: authorization server metadata (RFC 8414) and protected resource metadata (RFC 9728);
- shared by the flows: `scopes` (RFC 6749 3.3), `pkce` (RFC 7636), `resource_indicator`
  (RFC 8707), `redirect_uris` (RFC 6749 3.1.2).
"""
