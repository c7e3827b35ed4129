"""The operators' console, GET /console and /console/{proxy+} (docs/console.md): its own function and client.

The console is a first-party OpenID Connect client of the stack's own operators tenant (client): it signs an
operator in at the stack's authorization endpoint at acr `mfa` with the console's max_age (sign_in), exchanges the
code at the token endpoint over HTTP as any client would (token_request), checks the ID token against the published
keys (id_token), and keeps the operator's session server-side (session). Every page asks operators.roles whether the
operator may (pages, and each page's module); sign_out ends the session here and at the end_session endpoint.
"""
