"""The contract's names: plugin, events, message sources, services, files."""

from __future__ import annotations

from typing import Final

#: the profile row id and the entry-point name
PLUGIN_NAME: Final = "evolution-review"
#: ``source.kind`` of every message this plugin delivers (review prompts, notices)
NOTICE_KIND: Final = "evolution-review"
#: ``label`` of the review child
CHILD_LABEL: Final = "dsh-evolution-review"
#: the ``/evolution`` command
COMMAND: Final = "evolution"
#: the model-facing skill tool
SKILL_TOOL: Final = "skill"

# process events (host.emit), never session events
REVIEW_SCHEDULED: Final = "evolution/review-scheduled"
PLAN_APPLIED: Final = "evolution/plan-applied"
REVIEW_ERROR: Final = "evolution/review-error"
SKILL_MUTATED: Final = "evolution/skill-mutated"

#: ``$DSH_HOME/<dir>``
MEMORY_DIR: Final = "memory"
SKILLS_DIR: Final = "skills"
STATE_FILE: Final = "evolution/review-state.json"
#: persisted review state keeps this many sessions (least recently updated go first)
REVIEW_STATE_SESSION_CAP: Final = 500
#: the origin skill writes from an applied plan carry
REVIEW_ORIGIN: Final = "background_review"
