"""Pure, prompt-agnostic static analysis: facts from ``ast``, bandit and radon.

``astfacts`` (ast facts), ``security`` (bandit), ``maintainability`` (radon) and
``legacy`` (the spec's ``SecurityAnalyzer``/``PerformanceAnalyzer``/``MaintainabilityAnalyzer``).
Nothing here runs or imports submitted code.
"""
