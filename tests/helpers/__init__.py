"""What the tests share and are not tests themselves: the lmms-eval runner and its warm parent, the answer corpus,
the loopback OpenAI server, the tiny models, each benchmark's independent transcription of its official scorer,
the scripts run in a process of their own and the toy benchmark (``toybench/``, registered from its dist-info
folder). Nothing here is collected: pytest collects ``test_*.py`` files only."""
