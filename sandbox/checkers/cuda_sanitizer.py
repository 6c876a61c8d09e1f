"""compute-sanitizer reports (memcheck, racecheck, synccheck) as findings.

Every line of the tool's own output starts with its prefix `=========`. An error opens with a
headline at the prefix's indentation, followed by indented details:

    ========= Invalid __global__ write of size 4 bytes
    =========     at saxpy(float, float *, int)+0x70 in main.cu:5
    =========     by thread (256,0,0) in block (0,0,0)
    ...
    ========= ERROR SUMMARY: 1 error

racecheck reports hazards on shared memory:

    ========= Error: Race reported between Write access at tile(float *)+0x1a0 in main.cu:12
    =========     and Read access at tile(float *)+0x1c0 in main.cu:14 [4 hazards]
    ========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)

Older releases print the place as `at 0x1a0 in /path/main.cu:12:tile(float *)`; both parse.
"""

from __future__ import annotations

import re

from sandbox.verdict import Finding

TOOL = "compute-sanitizer"
PREFIX = "========="
BANNER = f"{PREFIX} COMPUTE-SANITIZER"
"""The first line compute-sanitizer writes to its log."""

_PLACE = re.compile(r"\bin (?P<file>[^\s:]+):(?P<line>\d+)")
_ERROR_SUMMARY = re.compile(r"ERROR SUMMARY: (?P<n>\d+) errors?")
_RACE_SUMMARY = re.compile(
    r"RACECHECK SUMMARY: (?P<n>\d+) hazards? displayed \((?P<e>\d+) errors?, (?P<w>\d+) warnings?\)"
)
_SKIP = re.compile(
    r"^(COMPUTE-SANITIZER|ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY|Saved host backtrace|"
    r"Host Frame|Process ID|Target application returned)"
)


def parse_sanitizer(tool: str, output: str) -> list[Finding]:
    """Findings of one compute-sanitizer run (`tool` is memcheck, racecheck or synccheck).

    racecheck warnings (hazards the tool rates as benign, like identical values written) are
    kept with kind `racecheck warning`; the caller decides whether they fail a candidate.
    """
    findings: list[Finding] = []
    current: Finding | None = None
    for raw in output.splitlines():
        if not raw.startswith(PREFIX):
            continue
        body = raw[len(PREFIX) :]
        text = body.strip()
        if not text:
            current = None
            continue
        headline = not body.startswith("  ")  # details are indented by at least 4 spaces
        if headline:
            current = None
            if _SKIP.match(text):
                continue
            current = Finding(kind=_kind(tool, text), tool=TOOL, message=f"{tool}: {text}")
            _place(current, text)
            findings.append(current)
        elif current is not None:
            if current.file is None:
                _place(current, text)
            if text.startswith(("by thread", "and ")) and len(current.message) < 400:
                current.message += f"; {text}"
    return findings


def error_count(output: str) -> int | None:
    """The tool's own count of errors (racecheck: errors among hazards), None without a summary."""
    if m := _RACE_SUMMARY.search(output):
        return int(m.group("e"))
    if m := _ERROR_SUMMARY.search(output):
        return int(m.group("n"))
    return None


def has_proof(log: str) -> bool:
    """Whether `log` shows the tool checked a whole run: its banner first, its summary after.

    The tool writes the summary once the program has ended; a log without it (empty, cut short
    by a crash of the tool, or never written) vouches for nothing.
    """
    return log.startswith(BANNER) and error_count(log) is not None


def _kind(tool: str, headline: str) -> str:
    if tool == "racecheck":
        return "racecheck warning" if headline.lower().startswith("warning") else "racecheck hazard"
    if tool == "synccheck":
        return "synccheck error"
    return "memcheck error"


def _place(finding: Finding, text: str) -> None:
    if m := _PLACE.search(text):
        finding.file = m.group("file").rsplit("/", 1)[-1]
        finding.line = int(m.group("line"))
