"""The benchmarks' data: where the files are (an offline folder or the Hub), archives, the source log
(:mod:`.sources`), and the synthetic copies of every benchmark the demo and the tests run on (:mod:`.fixtures`)."""
