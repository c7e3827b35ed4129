"""operators.model: an operator is a user of the operators tenant and the roles they hold, said as people read them."""

from __future__ import annotations

from authgate.operators.model import Operator
from authgate.users.model import User

OLIVIA = User("operators", "olivia", 0, 0, user_id="usr_olivia")


def test_an_operator_is_named_by_the_user_and_says_their_roles() -> None:
    assert (Operator(OLIVIA).username, Operator(OLIVIA).described()) == ("olivia", "none")
    assert Operator(OLIVIA, (("owner", ()), ("support", ("acme", "demo")))).described() == (
        "owner, support (acme, demo)")

