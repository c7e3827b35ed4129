"""Client-side helpers: reading any error response of the contract into one value."""
