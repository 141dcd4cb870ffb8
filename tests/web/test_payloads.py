"""What the page is sent about a session: its label is person or model text,
so it is escaped and bounded however many control characters it holds."""

from __future__ import annotations

from harness.web.payloads import clean, session_label, session_title
from hookspecs.values import EventTypes, SessionEvent, create_user_message
from hookspecs.values.messages import message_to_json


def _event(seq: int, type: str, data: object) -> SessionEvent:
    return SessionEvent(seq=seq, type=type, time=0.0, data=data)


def test_clean_bounds_what_it_sends_after_making_controls_visible() -> None:
    # each bidi override becomes an eight-character stand-in
    out = clean("\u202e" * 100, 80)
    assert len(out) == 80 and out.endswith("…") and "\u202e" not in out
    assert clean("plain", 80) == "plain"


def test_a_session_is_labelled_by_its_first_prompt_and_a_short_id() -> None:
    prompt = create_user_message("  deploy\tthe\nsite  " + "\u202e" * 40 + "x" * 200)
    events = [
        _event(0, EventTypes.TURN_START, {"turn": 1}),
        _event(1, EventTypes.USER_MESSAGE, {"message": message_to_json(prompt)}),
        _event(2, EventTypes.USER_MESSAGE, {"message": message_to_json(create_user_message("later"))}),
    ]
    title = session_title(events)
    assert title.startswith("deploy the site ") and len(title) == 80
    label = session_label("0123456789abcdef", title)
    assert label.startswith("deploy the site <U+202E>") and label.endswith("… · 01234567")
    assert "\u202e" not in label and len(label) == 80 + len(" · 01234567")
    assert session_label("0123456789abcdef", session_title([])) == "(untitled) · 01234567"

