"""What a person's grants to clients become when they end: a grant revoked (its access tokens and refresh family),
a consent withdrawn (its remembered scopes and every grant made under it)."""
