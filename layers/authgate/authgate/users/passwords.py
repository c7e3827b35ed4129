"""Password hashing for sign-in: scrypt (RFC 7914), the cost stored with each hash (NIST 800-63B 5.1.1.2)."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from authgate import base64url
from authgate.caches import cached

# scrypt cost (RFC 7914): N=2**17, r=8, p=1, OWASP's current minimum (Password Storage Cheat
# Sheet): 128 MiB of memory per hash (the functions have 512 MiB); `make bench` (bench/sign_in.py)
# measures a sign-in. Stored with each hash, so a raise keeps old hashes working; a sign-in with an
# older cost rehashes the password at the current one (`needs_rehash`).
SCRYPT_N, SCRYPT_R, SCRYPT_P, SCRYPT_DKLEN = 2**17, 8, 1, 32
# A new password (NIST 800-63B 5.1.1.2: at least 8 characters; a generous maximum, hashing is bounded).
MIN_PASSWORD, MAX_PASSWORD = 8, 1024


def password_problem(password: str, username: str) -> str:
    """Why a new password is refused, in a sentence for the person ("" when it is acceptable): its length,
    control characters, or being the username (NIST 800-63B 5.1.1.2)."""
    if len(password) < MIN_PASSWORD:
        return f"The password must have at least {MIN_PASSWORD} characters."
    if len(password) > MAX_PASSWORD:
        return f"The password must have at most {MAX_PASSWORD} characters."
    if any(ord(c) < 32 or ord(c) == 127 for c in password):
        return "The password must not contain control characters."
    if password.casefold() == username.casefold():
        return "The password must not be the username."
    return ""


def hash_password(password: str, *, n: int = SCRYPT_N, r: int = SCRYPT_R, p: int = SCRYPT_P) -> str:
    """`scrypt$N$r$p$salt$hash` with a fresh 16-byte salt."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p,
                            maxmem=128 * n * r * p + 1024 * 1024, dklen=SCRYPT_DKLEN)
    return f"scrypt${n}${r}${p}${base64url.encode(salt)}${base64url.encode(digest)}"


def check_password(password: str, encoded: str) -> bool:
    """Constant-time comparison against a stored `scrypt$...` hash; malformed hashes never match."""
    try:
        scheme, n, r, p, salt, expected = encoded.split("$")
        if scheme != "scrypt":
            return False
        n_, r_, p_ = int(n), int(r), int(p)
        digest = hashlib.scrypt(password.encode("utf-8", "surrogatepass"), salt=base64url.decode(salt), n=n_, r=r_, p=p_,
                                maxmem=128 * n_ * r_ * p_ + 1024 * 1024, dklen=len(base64url.decode(expected)))
    except (ValueError, TypeError, UnicodeEncodeError):
        return False
    return hmac.compare_digest(digest, base64url.decode(expected))


def needs_rehash(encoded: str) -> bool:
    """True when a stored hash was made with another cost than the current one (so a sign-in upgrades it)."""
    return encoded.split("$")[1:4] != [str(SCRYPT_N), str(SCRYPT_R), str(SCRYPT_P)]


@cached
def dummy_hash() -> str:
    """A hash at the current cost that no password matches, checked for unknown users and refused attempts."""
    # So timing does not tell them apart. Random bytes, not a hash made now: making one would cost
    # the first unknown user of a warm container a second scrypt, itself a tell.
    salt, digest = secrets.token_bytes(16), secrets.token_bytes(SCRYPT_DKLEN)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${base64url.encode(salt)}${base64url.encode(digest)}"


