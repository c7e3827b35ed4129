"""interaction.steps: a form's step by name, the stale form, and a step's own sealed fields beside the flow's."""

from __future__ import annotations

import pytest

from authgate.interaction import steps

TABLE = {"password": "the password step", "factor": "the factor step", "consent": "the consent step"}


def test_a_step_is_found_by_its_name() -> None:
    assert steps.handler(TABLE, "password", {"username": "alice", "password": "x"}) == "the password step"
    assert steps.handler(TABLE, "factor", {"factor_ticket": "t", "code": "1"}) == "the factor step"


@pytest.mark.parametrize("step", ["", "change", "PASSWORD", "password "])
def test_a_step_the_flow_does_not_have_is_stale(step: str) -> None:
    with pytest.raises(steps.Stale, match="unknown step"):
        steps.handler(TABLE, step, {})


@pytest.mark.parametrize(("step", "field"), [("password", "factor_ticket"), ("password", "change_ticket"),
                                             ("password", "credential"), ("consent", "factor_ticket"),
                                             ("factor", "change_ticket")])
def test_a_field_another_step_owns_makes_the_form_stale_never_another_step(step: str, field: str) -> None:
    with pytest.raises(steps.Stale, match=f"a {steps.OWN_FIELDS[field]} field on a {step} form"):
        steps.handler(TABLE, step, {field: "x"})


def test_an_empty_field_is_no_field_and_a_step_may_carry_what_it_takes() -> None:
    assert steps.handler(TABLE, "password", {"factor_ticket": ""}) == "the password step"
    with pytest.raises(steps.Stale):
        steps.handler(TABLE, "factor", {"credential": "{}"})
    assert steps.handler(TABLE, "factor", {"credential": "{}"}, {"factor": ("credential",)}) == "the factor step"


def test_a_steps_own_fields_come_right_after_the_flows_csrf_token_all_escaped() -> None:
    state = [("request_blob", 'b"<'), ("csrf", "c"), ("decision", "approve")]
    assert steps.hidden(state, [("change_ticket", "t&")]) == (
        '<input type="hidden" name="request_blob" value="b&quot;&lt;">\n'
        '<input type="hidden" name="csrf" value="c">\n'
        '<input type="hidden" name="change_ticket" value="t&amp;">\n'
        '<input type="hidden" name="decision" value="approve">')
    assert steps.hidden([("token", "x")], [("own", "y")]).endswith('name="own" value="y">')  # no CSRF field: last
    assert (steps.csrf_of(state), steps.csrf_of([("token", "x")])) == ("c", "")
