"""What /proc says about a process, for the load and server benchmark peers."""


def rss_kib(pid):
    """The process's resident memory in KiB (VmRSS), 0 when it is not reported."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0
