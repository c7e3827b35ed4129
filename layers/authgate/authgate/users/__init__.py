"""Resource owners who sign in (RFC 6749 1.1): the user record, the sign-in throttle and password hashing."""
