"""authgate as an OpenID Connect relying party of a tenant's upstream identity provider (OpenID Connect Core 1.0).

`sign_in.start` builds the authorization request, `sign_in.finish` turns the answer into an
UpstreamIdentity (authgate.federation.upstream) or raises UpstreamRefused; `logout` builds the
upstream end-session URL and checks back-channel logout tokens. Nothing here renders HTTP: the
interaction does, and keeps state, nonce and code verifier between the two calls.
"""
