"""Time from process start to the first byte of the answer on standard output, for each
command given, alternating runs; prints the median and p90 in milliseconds per command."""
import os
import statistics
import subprocess
import sys
import time


def first_byte(command, environment):
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               stdin=subprocess.DEVNULL, env=environment)
    process.stdout.read(1)
    elapsed = time.monotonic() - start
    process.stdout.read()
    process.wait()
    return elapsed * 1000


def main():
    runs = int(sys.argv[1])
    commands = [arguments.split("\x1f") for arguments in sys.argv[2:]]
    environment = dict(os.environ)
    results = {index: [] for index in range(len(commands))}
    for _ in range(runs):
        for index, command in enumerate(commands):
            results[index].append(first_byte(command, environment))
    for index, command in enumerate(commands):
        values = sorted(results[index])
        p90 = values[min(len(values) - 1, int(len(values) * 0.9))]
        print(f"{' '.join(command[:3])}: median {statistics.median(values):.1f} ms, p90 {p90:.1f} ms ({runs} runs)")


main()
