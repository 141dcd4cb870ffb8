"""evolution-review: an end-of-conversation self-improvement review for agent
hosts on the ``hookspecs`` contract. It distils what the agent should remember
(memory notes under ``$DSH_HOME/memory/``) and what it learned to do (skills
under ``$DSH_HOME/skills/<name>/SKILL.md``) and delivers them back. See
``docs/evolution-review.md``. Imports only :mod:`hookspecs`."""
