"""A relay already in the root's inbox never reaches the model once real user
input advanced the epoch (issue 10, item 7): it is dropped where inbox items
enter the history and its run settles ``aborted`` at ``relay``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hookspecs import hookimpl
from hookspecs.values import create_user_message
from shadow_mind_plugin.vocabulary import REPORT_SOURCE_KIND

from .helpers import new_root, settle, shadow_host, write_definition
from .test_outcomes import REPORT, Settlements, script


class SpeakAfterRelay:
    """The person speaks the moment a relay is queued, before the root claims it."""

    def __init__(self) -> None:
        self.spoke = False

    @hookimpl
    def dsh_agent_inbox(self, agent: Any, change: str, message: Any) -> None:
        if change == "inserted" and message.source_kind == REPORT_SOURCE_KIND and not self.spoke:
            self.spoke = True
            agent.followup(create_user_message("a new topic"))


def model_saw_a_relay(adapter: Any) -> bool:
    for request in adapter.requests:
        if request.metadata["delegation_depth"] != 0:
            continue
        for message in request.messages:
            if "Background Shadow reports" in str(message):
                return True
    return False


async def test_a_queued_relay_is_dropped_after_a_real_user_message(tmp_path: Path, autojump_clock: Any) -> None:
    home = tmp_path / "home"
    write_definition(home, probability=0.0)
    speaker = SpeakAfterRelay()
    async with shadow_host(tmp_path, script(REPORT), home=home, plugins=[("speaker", speaker)]) as (host, adapter, runtime):
        settled = Settlements(runtime)
        root = await new_root(host)
        root.followup(create_user_message("please check the notes"))
        await settle(host, root)
        runtime.controls.review_now(root)  # /shadow new
        await settle(host, root)
        assert speaker.spoke
        view = settled.only()
        assert (view.phase, view.stage, view.reason_code) == ("aborted", "relay", "USER_MESSAGE_RECEIVED")
        assert view.relayed is False
        assert not model_saw_a_relay(adapter)
        assert not [e for e in root.session.events if e.type == "user/message" and e.data["message"]["source"].get("kind") == REPORT_SOURCE_KIND]
