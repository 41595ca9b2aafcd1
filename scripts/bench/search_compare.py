"""Whole-process history search, Sybil against llm, alternating runs over the same queries:
usage: search_compare.py QUERIES.tsv SYBIL LLM

QUERIES.tsv: category, Sybil's query, llm's query (FTS5 syntax) per line. Each query runs
`SYBIL search QUERY --limit 20` and `LLM logs -q QUERY -n 20` once each (output discarded,
both must exit 0 and print something); prints p50 per category and overall, and the ratio."""
import statistics
import subprocess
import sys
import time


def timed(command):
    start = time.monotonic()
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    elapsed = (time.monotonic() - start) * 1000
    if result.returncode != 0 or not result.stdout:
        sys.exit(f"search_compare: {' '.join(command)} failed ({result.returncode}): {result.stderr[-300:]!r}")
    return elapsed


def main():
    queries = [line.rstrip("\n").split("\t") for line in open(sys.argv[1], encoding="utf-8") if line.strip()]
    sybil, llm = sys.argv[2], sys.argv[3]
    timings = {}
    timed([sybil, "search", queries[0][1], "--limit", "20"])
    timed([llm, "logs", "-q", queries[0][2], "-n", "20"])
    for category, sybil_query, llm_query in queries:
        entry = timings.setdefault(category, ([], []))
        entry[0].append(timed([sybil, "search", sybil_query, "--limit", "20"]))
        entry[1].append(timed([llm, "logs", "-q", llm_query, "-n", "20"]))
    every_sybil = [t for values in timings.values() for t in values[0]]
    every_llm = [t for values in timings.values() for t in values[1]]
    for category, (sybil_times, llm_times) in list(timings.items()) + [("all", (every_sybil, every_llm))]:
        s, l = statistics.median(sybil_times), statistics.median(llm_times)
        print(f"{category} ({len(sybil_times)} queries): sybil search p50 {s:.1f} ms, "
              f"llm logs -q p50 {l:.1f} ms: {l / s:.1f}x")


main()
