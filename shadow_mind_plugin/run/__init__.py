"""The run stage: one fresh reviewer child per admitted run.

It owns admission and the run lifecycle (:mod:`.run_stage`: deadline, cancellation,
settlement of runs stopped from outside), the pipeline that captures the
trajectory, frames the prompt, selects the model route and tools and starts,
awaits and disposes of the child (:mod:`.pipeline`), the reserved
``shadow-mind`` provider with minimal context and think-first
(:mod:`.provider`) and the degenerate-output watchdog (:mod:`.watchdog`). Its
per-root state is :class:`.run_state.RunState`.
"""
