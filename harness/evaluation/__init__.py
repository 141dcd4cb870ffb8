"""``harness shadow eval CORPUS``: grade a reviewer on a labelled corpus of sessions.

Each case goes through the real plugin path (import or load, projection,
reviewer, contract validation) in a host of its own; the scores say how often
the reviewer catches a planted defect, whether its refs point at the labelled
evidence, how often it raises a finding on a clean session, and what it cost.
See docs/evaluation.md.
"""
