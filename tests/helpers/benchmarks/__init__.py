"""Per benchmark, what its unit tests and its end-to-end runs share: an independent transcription of the official
scorer (written from the official code, not from our modules) and the answer sets whose expected numbers are worked
out by hand."""
