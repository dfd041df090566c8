"""Reading a model's answer: the robust reading (which part of an answer is read, then the question's options:
:mod:`.options`) and each benchmark's official rule byte for byte, as registered parsers (:mod:`.parsing`)."""
