"""Context budgets: the one place that decides how much goes into each model request (plan §3–§6, §11).

Modules (import them directly; this package imports nothing so ``replaysage`` starts fast):

* :mod:`app.tokens` — offline cl100k counting (``count_tokens``, ``count_tokens_batch``) and
  ``TokenEstimator`` (raw × calibration × safety 1.2).
* :mod:`app.budget.profile` — ``ModelProfile``: tiers by context length (K = 1000; 1M, 200K, 128K, 64K, 32K, every
  number in ``TIER_SPECS``), tier-default budgets, output reserve max(2 × max_tokens, 32K) scaled below 128K, 90%
  hard limit, prices.
* :mod:`app.budget.calibration` — per-model bounded moving average of real / estimated prompt tokens (JSON file in
  the user data folder).
* :mod:`app.budget.guard` — ``Breakdown`` of a request and ``check_request`` (refuse > 90% of the context length,
  warn > budget); call it before every request, lookbacks and revisions included.
* :mod:`app.budget.segment` — ``LogBlock`` input shape, mechanical slices with overlap, the tier's slice cap (20 from
  200K up), compaction.
* :mod:`app.budget.focus` — ``FocusPlanner``: 1–5 focus windows per slice.
* :mod:`app.budget.prompt` — ``PromptAssembler``: cache-friendly OpenAI messages with a breakdown each.
* :mod:`app.budget.plan` / :mod:`app.budget.from_replay` — ``plan_run`` / ``plan_replay_file`` for
  ``replaysage plan`` and the pipeline.
"""
