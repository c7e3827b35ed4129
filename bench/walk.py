"""The walk of one password sign-in POST at the authorization endpoint: which authgate modules it enters, how many
authgate functions return, and how deep authgate's own stack goes.

In-process against moto with the demo seed (bench/moto_stack.py, as the functional tests and the other benches run
the handlers): the authorize handler is warmed with one whole sign-in (GET the form, POST alice's password), then
a second form is fetched and its POST runs under `sys.setprofile`. Counted, for frames whose module is
`authgate` or below it: the modules entered (each once), the returns (a Python function's call that ended, by its
return or an exception: the number of calls made in authgate code), and the deepest authgate stack (authgate
frames on the stack at once; a call from a library back into authgate counts on top of the frames below it).
scrypt is a C call: the password hash adds no returns. The walk is a figure of structure, never a timing: the
same request gives the same figures on any machine.

Run: `python -m bench walk` (`--modules` lists every module entered, with its returns).
"""

from __future__ import annotations

import sys
from collections import Counter
from types import FrameType
from typing import Any

QUERY = ("response_type=code&client_id=demo-web&scope=openid%20charges:read&nonce=n"
         "&redirect_uri=http://127.0.0.1:8765/callback&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
         "&code_challenge_method=S256&state=s")


class Walk:
    """A profile function counting authgate's frames: modules entered, returns, the deepest stack."""

    def __init__(self) -> None:
        self.returns: Counter[str] = Counter()
        self.depth = 0
        self.deepest = 0

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event not in ("call", "return"):
            return
        module = frame.f_globals.get("__name__", "")
        if module != "authgate" and not module.startswith("authgate."):
            return
        if event == "call":
            self.depth += 1
            self.deepest = max(self.deepest, self.depth)
        else:
            self.depth -= 1
            self.returns[module] += 1


def _form_post(authorize: Any) -> dict[str, Any]:
    """A fresh sign-in form's POST event: alice's password, Approve, the form's hidden fields and cookies."""
    import html
    import re
    from urllib.parse import urlencode

    from authgate_cli.local.events import HttpRequest, build_event

    page = authorize(build_event(HttpRequest("GET", "/oauth/authorize", QUERY, [("Host", "127.0.0.1:3000")]),
                                 resource="/oauth/authorize", path_params=None), None)
    assert page["statusCode"] == 200, page["body"][:300]
    cookies = [c.split(";", 1)[0] for c in (page.get("multiValueHeaders") or {}).get("Set-Cookie", [])]
    fields = {k: html.unescape(v) for k, v in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"',
                                                          page["body"])}
    fields.update(username="alice", password="alice-password", decision="approve")
    event: dict[str, Any] = build_event(HttpRequest("POST", "/oauth/authorize", "", [
        ("Host", "127.0.0.1:3000"), ("Cookie", "; ".join(cookies)),
        ("Content-Type", "application/x-www-form-urlencoded")], urlencode(fields).encode()),
        resource="/oauth/authorize", path_params=None)
    return event


def measure() -> dict[str, Any]:
    """The walk of one warm password sign-in POST (a 303 with a code)."""
    from bench.moto_stack import moto_stack

    with moto_stack():
        from authgate.tokens.rotation import ensure_keys
        from authgate_cli.local.functions import load_handler
        from authgate_cli.local.seed import load_seed

        load_seed()
        ensure_keys()
        authorize = load_handler("authorize")
        warm = authorize(_form_post(authorize), None)
        assert warm["statusCode"] == 303, warm["body"][:300]
        event = _form_post(authorize)
        walk = Walk()
        sys.setprofile(walk)
        try:
            result = authorize(event, None)
        finally:
            sys.setprofile(None)
        assert result["statusCode"] == 303, result["body"][:300]
    return {"modules": dict(sorted(walk.returns.items())), "returns": sum(walk.returns.values()),
            "deepest": walk.deepest}


def main() -> int:
    figures = measure()
    modules = figures["modules"]
    flows = sorted(m for m in modules if m.startswith(("authgate.oauth.", "authgate.interaction.",
                                                       "authgate.account.")))
    print(f"password sign-in POST (warm, moto, demo seed): {len(modules)} authgate modules entered, "
          f"{figures['returns']} returns in authgate code, deepest authgate stack {figures['deepest']} frames")
    print(f"flow modules entered ({len(flows)}): {', '.join(m.removeprefix('authgate.') for m in flows)}")
    if "--modules" in sys.argv:
        for module, returns in modules.items():
            print(f"  {returns:6d}  {module}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
