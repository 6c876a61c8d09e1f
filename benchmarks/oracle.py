"""A simulated capable model: an OpenAI-compatible server that answers ParForge's requests on
ParEval tasks with the suite's own code. Every figure measured with it is SIMULATED.

It recognises the task from the sequential source in the prompt and the target from the words
the prompt uses, then answers

- a code request (a rewrite, a repair, an evolution child, a reasoning thread, prompt mode)
  with the suite's known-good solution for that task and target with probability `p`, and with
  one of that solution's planted mutants otherwise (a draw keyed by seed, task, target and the
  attempt's index, so every mode sees the same answer for its n-th attempt, and runs repeat);
  each answer's surface varies with the attempt (variables renamed, a comment, independent
  declarations in another order), so threads that write the same program must be found
  converging, not found equal as text;
- a plan with a valid plan: a rewrite and the target's own tool, each verified;
- loop choices, loop picks and outlines with the first options the schema offers.

Code streams at a fixed rate (`rate` tokens a second, a token being a word here), so pruning a
thread saves time as it would on a real server.

    .venv/bin/python benchmarks/oracle.py --p 0.6 --seed 1 --port 8100

serves it (`PARFORGE_MODEL__ENDPOINT__URL=http://127.0.0.1:8100/v1`); tests and
`benchmarks/oracle_pareval.py` run it in process (`Oracle(...).app`).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import re
import socket
from collections import Counter
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from agents.analysis.parse import syntax_tree
from agents.reasoning.fingerprint import independent_runs
from corpus.suites import load_suite
from corpus.tasks import SuiteTask
from sandbox.spec import Language, Target

MODEL = "oracle"
WINDOW = 32_768
"""The context window it reports (`max_model_len`), as vLLM does."""
_NUMBERED = re.compile(r"^\s*(\d+ \||//) ?", re.M)
"""What a prompt puts before the source's lines: numbers (the agent's), `//` (ParEval's
translation prompts comment the sequential code out)."""
_TARGET_WORDS = (
    (
        re.compile(
            r"\bparallel OpenMP\b|\bfaster openmp\b|OpenMP directives|// OpenMP implementation",
            re.I,
        ),
        Target.OPENMP,
    ),
    (re.compile(r"\bparallel MPI\b|\bfaster mpi\b|// MPI implementation", re.I), Target.MPI),
    (re.compile(r"\bparallel CUDA\b|\bfaster cuda\b|// CUDA implementation", re.I), Target.CUDA),
)


@dataclass(frozen=True)
class Draw:
    """One code answer: which task, target and attempt, and what it was."""

    task: str
    target: str
    attempt: int
    good: bool
    what: str
    """The known-good solution's name, or the mutant's."""


@dataclass
class Oracle:
    """The server's state: the draws so far, by (task, target)."""

    p: float
    seed: int = 0
    rate: float = 400.0
    """Words streamed a second."""
    tasks: list[SuiteTask] = field(default_factory=list)
    attempts: Counter[tuple[str, str]] = field(default_factory=Counter)
    draws: list[Draw] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    tokens: int = 0
    """Prompt and completion tokens of every request since the last reset (as it counts them:
    four characters a prompt token, a word a completion token)."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.p <= 1.0:
            raise ValueError("p is a probability")
        if not self.tasks:
            self.tasks = list(load_suite("pareval").tasks)
        self._lines = {t.name: _distinct_lines(t.reference) for t in self.tasks}
        self._prompts = [(t.prompt_for(g).strip(), t) for t in self.tasks for g in t.targets]

    def reset(self) -> None:
        """Forget the attempts (a new arm of a comparison starts from attempt 0)."""
        self.attempts.clear()
        self.draws.clear()
        self.requests.clear()
        self.tokens = 0

    # -- recognising the request ---------------------------------------------------------

    def recognise(self, prompt: str) -> SuiteTask | None:
        """The task whose sequential source the prompt shows (most of its lines present), or
        whose generation prompt for a target it holds (ParEval's translation prompts show
        ParEval's own sequential code, not always the suite's)."""
        for generation, task in self._prompts:
            if generation in prompt:
                return task
        shown = {line.strip() for line in _NUMBERED.sub("", prompt).splitlines()}
        best, score = None, 0.0
        for task in self.tasks:
            lines = self._lines[task.name]
            if not lines:
                continue
            found = sum(1 for line in lines if line in shown) / len(lines)
            if found > score:
                best, score = task, found
        return best if score >= 0.9 else None

    @staticmethod
    def target_of(prompt: str) -> Target | None:
        for pattern, target in _TARGET_WORDS:
            if pattern.search(prompt):
                return target
        return None

    # -- answers ---------------------------------------------------------------------------

    def answer(self, body: dict[str, Any], index: int = 0) -> str:
        """The text of one choice of a chat request."""
        asked = [m for m in body.get("messages", []) if m.get("role") != "system"]
        prompt = "\n".join(str(m.get("content") or "") for m in asked)
        fmt = body.get("response_format") or {}
        schema = (fmt.get("json_schema") or {}).get("schema")
        name = (fmt.get("json_schema") or {}).get("name", "")
        task, target = self.recognise(prompt), self.target_of(prompt)
        if fmt.get("type") in ("json_schema", "json_object") or schema is not None:
            return json.dumps(self._structured(name, schema, target))
        if task is None or target is None or not task.applies_to(target):
            return "I do not recognise this program."
        return f"```cpp\n{self.code(task, target)}\n```\nThis follows the strategy asked for."

    def code(self, task: SuiteTask, target: Target, varied: bool = True) -> str:
        """The next attempt's code for `task` in `target`: known-good with probability p
        (`varied`: its surface changed with the attempt)."""
        key = (task.name, target.value)
        attempt = self.attempts[key]
        self.attempts[key] += 1
        rng = random.Random(f"{self.seed}:{task.name}:{target.value}:{attempt}")
        solution = task.target(target).solutions[0]
        good = rng.random() < self.p or not solution.mutants
        chosen = solution if good else rng.choice(solution.mutants)
        self.draws.append(Draw(task.name, target.value, attempt, good, chosen.name))
        return vary(chosen.source, attempt, _language(task)) if varied else chosen.source

    def completion(self, body: dict[str, Any]) -> str:
        """A text completion (ParEval's prompt mode): the rest of the function after the
        target's generation prompt the request's prompt ends with."""
        prompt = str(body.get("prompt") or "")
        task, target = self.recognise(prompt), self.target_of(prompt)
        if task is None or target is None or not task.applies_to(target):
            return "\n}\n"
        head = task.prompt_for(target)
        code = self.code(task, target, varied=False)
        return code[len(head) :] if code.startswith(head) else code

    def _structured(self, name: str, schema: dict[str, Any] | None, target: Target | None) -> Any:
        if name == "plan" and schema is not None:
            return _plan(schema, target)
        if name == "choices" and schema is not None:
            return {"choices": [_first(b) for b in _items(schema, "choices")]}
        if name == "loops" and schema is not None:
            return {"loops": list(schema["properties"]["loops"]["items"].get("enum", []))}
        if name == "outlines" and schema is not None:
            item = schema["properties"]["outlines"]["items"]
            most = schema["properties"]["outlines"].get("maxItems", 4)
            strategies = item["properties"]["strategy"].get("enum", [])[:most]
            return {"outlines": [{"strategy": s, "detail": f"follow {s}"} for s in strategies]}
        return _first(schema) if schema is not None else {}

    # -- the server ------------------------------------------------------------------------

    @property
    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/models", self._models, methods=["GET"]),
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
                Route("/v1/completions", self._complete, methods=["POST"]),
            ]
        )

    async def _models(self, request: Request) -> Response:
        entry = {"id": MODEL, "object": "model", "parent": None, "max_model_len": WINDOW}
        return JSONResponse({"object": "list", "data": [entry]})

    async def _chat(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(body)
        texts = [self.answer(body, i) for i in range(int(body.get("n") or 1))]
        prompt_tokens = sum(len(str(m.get("content") or "")) for m in body["messages"]) // 4
        self.tokens += prompt_tokens + sum(len(t.split(" ")) for t in texts)
        if not body.get("stream"):
            return JSONResponse(_completion(body, texts, prompt_tokens))
        return StreamingResponse(
            self._stream(body, texts, prompt_tokens), media_type="text/event-stream"
        )

    async def _complete(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(body)
        texts = [self.completion(body) for _ in range(int(body.get("n") or 1))]
        prompt_tokens = len(str(body.get("prompt") or "")) // 4
        self.tokens += prompt_tokens + sum(len(t.split(" ")) for t in texts)
        return StreamingResponse(
            self._stream(body, texts, prompt_tokens, chat=False), media_type="text/event-stream"
        )

    async def _stream(
        self, body: dict[str, Any], texts: list[str], prompt_tokens: int, chat: bool = True
    ) -> AsyncIterator[bytes]:
        head = {"id": "chatcmpl-oracle", "model": body.get("model", MODEL), "object": "chunk"}
        structured = bool(body.get("response_format"))
        delay = 0.0 if structured else 1.0 / self.rate
        for i, text in enumerate(texts):
            words = text.split(" ")
            for k, word in enumerate(words):
                piece = word if k == 0 else " " + word
                choice: dict[str, Any] = (
                    {"index": i, "delta": {"content": piece}}
                    if chat
                    else {"index": i, "text": piece}
                )
                if body.get("logprobs") and chat:
                    entry = {"token": piece, "logprob": -0.05, "top_logprobs": []}
                    choice["logprobs"] = {"content": [entry]}
                yield _event(head | {"choices": [choice]})
                if delay:
                    await asyncio.sleep(delay)
            end = {"delta": {}} if chat else {"text": ""}
            yield _event(head | {"choices": [{"index": i, "finish_reason": "stop"} | end]})
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": sum(len(t.split(" ")) for t in texts),
        }
        yield _event(head | {"choices": [], "usage": usage})
        yield b"data: [DONE]\n\n"


def _event(data: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(data)}\n\n".encode()


def _completion(body: dict[str, Any], texts: list[str], prompt_tokens: int) -> dict[str, Any]:
    return {
        "id": "chatcmpl-oracle",
        "object": "chat.completion",
        "model": body.get("model", MODEL),
        "choices": [
            {"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop"}
            for i, t in enumerate(texts)
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": sum(len(t.split(" ")) for t in texts),
        },
    }


def _distinct_lines(source: str) -> list[str]:
    """The lines that tell a program from another: long enough, not braces or includes."""
    lines = [line.strip() for line in source.splitlines()]
    return [
        line
        for line in lines
        if len(line) >= 12 and not line.startswith(("#include", "//", "/*", "*"))
    ]


def _language(task: SuiteTask) -> Language:
    return Language.C if task.language == "c" else Language.CPP


# -- structured answers ------------------------------------------------------------------


def _tools(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The plan schema's tools: name -> its args schema."""
    steps = schema["properties"]["steps"]["items"]["anyOf"]
    return {s["properties"]["tool"]["const"]: s["properties"]["args"] for s in steps}


def _plan(schema: dict[str, Any], target: Target | None) -> dict[str, Any]:
    """A rewrite and the target's own tool, each verified: strict mode's shape (every argument
    written, `null` where not given)."""
    tools = _tools(schema)
    own = {Target.OPENMP: "annotate", Target.MPI: "distribute", Target.CUDA: "offload"}
    steps: list[dict[str, Any]] = []

    def add(tool: str, why: str, **args: Any) -> None:
        if tool not in tools:
            return
        names = tools[tool].get("properties", {})
        steps.append(
            {
                "id": len(steps) + 1,
                "tool": tool,
                "args": {k: args.get(k) for k in names},
                "why": why,
            }
        )

    add("rewrite", "write the whole program in parallel", strategy="")
    add("verify", "prove the rewrite", candidate=f"${len(steps)}")
    if target is not None and own[target] in tools:
        add(own[target], "the loops the analysis proves", mode="model")
        add("verify", "prove the tool's candidate", candidate=f"${len(steps)}")
    return {"steps": steps}


def _items(schema: dict[str, Any], key: str) -> Iterable[dict[str, Any]]:
    array = schema["properties"][key]
    items = array["items"]
    branches = items.get("anyOf", [items])
    return branches[: array.get("maxItems", len(branches))]


def _first(schema: dict[str, Any]) -> Any:
    """The first value a schema allows: a const, the first enum value or branch, true, the
    minimum, an object of its properties' first values."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        return _first(schema["anyOf"][0])
    kind = schema.get("type")
    if kind == "object":
        return {k: _first(v) for k, v in schema.get("properties", {}).items()}
    if kind == "array":
        return [_first(schema["items"])] * max(1, schema.get("minItems", 1))
    if kind == "boolean":
        return True
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "null":
        return None
    return ""


# -- surface variation -------------------------------------------------------------------


def vary(source: str, attempt: int, language: Language) -> str:
    """The same program with another surface: from the second attempt on, a comment naming the
    attempt, every run of independent declarations rotated by the attempt's index, and every
    variable and parameter the code declares renamed (`sum` -> `sum_2`, everywhere it is used,
    directives included). Functions, types, members and qualified names keep theirs, so the
    program means what it meant."""
    if attempt == 0:
        return source
    source = reorder(source, attempt, language)
    root = syntax_tree(source, language).root_node
    declared = _declared(root) - _type_names(root)
    edits: list[tuple[int, int, str]] = []
    for ident in _identifiers(root):
        name = (ident.text or b"").decode()
        parent = ident.parent
        if name not in declared or parent is None or parent.type in _KEEP_PARENTS:
            continue
        if parent.type == "function_declarator" and not _in_body(parent):
            continue  # a function's own name
        edits.append((ident.start_byte, ident.end_byte, f"{name}_{attempt}"))
    data = source.encode()
    for start, end, new in sorted(edits, reverse=True):
        data = data[:start] + new.encode() + data[end:]
    text = data.decode()
    if declared:
        words = re.compile(r"\b(" + "|".join(map(re.escape, sorted(declared))) + r")\b")
        text = re.sub(
            r"^[ \t]*#pragma[^\n]*",
            lambda line: words.sub(lambda m: f"{m.group(1)}_{attempt}", line.group(0)),
            text,
            flags=re.M,
        )
    return f"// attempt {attempt}: the same parallel program, written again\n" + text


def reorder(source: str, attempt: int, language: Language) -> str:
    """The program with each run of declarations that mean the same in any order (the
    fingerprint's `independent_runs`: no calls, no shared names) rotated by `attempt` places."""
    data = source.encode()
    edits: list[tuple[int, int, bytes]] = []
    stack = [syntax_tree(source, language).root_node]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type != "compound_statement":
            continue
        for run in independent_runs(node):
            turn = attempt % len(run)
            if not turn:
                continue
            texts = [data[m.start_byte : m.end_byte] for m in run]
            texts = texts[turn:] + texts[:turn]
            gaps = [data[a.end_byte : b.start_byte] for a, b in itertools.pairwise(run)]
            joined = texts[0] + b"".join(gap + t for gap, t in zip(gaps, texts[1:], strict=True))
            edits.append((run[0].start_byte, run[-1].end_byte, joined))
    for start, end, new in sorted(edits, reverse=True):
        data = data[:start] + new + data[end:]
    return data.decode()


_KEEP_PARENTS = frozenset({"qualified_identifier", "preproc_def"})
_BUILTIN = frozenset(
    [
        "bool",
        "char",
        "short",
        "int",
        "long",
        "float",
        "double",
        "void",
        "size_t",
        "auto",
        "const",
        "unsigned",
        "signed",
    ]
)


def _declared(root: Any) -> set[str]:
    """The names of the variables and parameters a program declares (not its functions)."""
    names: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR":
            continue  # what the parser could not read (CUDA's launch syntax): left as it is
        stack.extend(node.children)
        if node.type in ("init_declarator", "parameter_declaration", "declaration"):
            target = node.child_by_field_name("declarator")
            while target is not None and target.type in (
                "pointer_declarator",
                "reference_declarator",
                "array_declarator",
                "init_declarator",
            ):
                inner = target.child_by_field_name("declarator")
                if inner is None:  # a reference declarator names its identifier as a child
                    inner = next((c for c in target.children if c.type == "identifier"), None)
                target = inner
            if target is not None and target.type == "function_declarator" and _in_body(node):
                # `std::vector<int> p(N);` in a body is a variable the parser takes for a
                # function declaration (the most vexing parse).
                target = target.child_by_field_name("declarator")
            if target is not None and target.type == "identifier":
                names.add((target.text or b"").decode())
    return names - _BUILTIN


def _in_body(node: Any) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type == "compound_statement":
            return True
        parent = parent.parent
    return False


def _type_names(root: Any) -> set[str]:
    """The names the program gives types (structs, classes, typedefs, template parameters)."""
    names: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type in (
            "struct_specifier",
            "class_specifier",
            "enum_specifier",
            "union_specifier",
        ):
            name = node.child_by_field_name("name")
            if name is not None:
                names.add((name.text or b"").decode())
        elif node.type in ("type_definition", "alias_declaration", "type_parameter_declaration"):
            names |= {
                (c.text or b"").decode() for c in node.children if c.type == "type_identifier"
            }
    return names


def _identifiers(node: Any) -> Iterable[Any]:
    """Every name that may be a variable's: identifiers, and type names that a constructor-style
    initialiser (`std::vector<double> M(A)`) makes the parser take for types."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in ("identifier", "type_identifier"):
            yield current
        stack.extend(current.children)


@asynccontextmanager
async def serving(oracle: Oracle) -> AsyncIterator[str]:
    """Serve `oracle` in this event loop on a free local port; yields its `/v1` URL."""
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    server = uvicorn.Server(
        uvicorn.Config(oracle.app, host="127.0.0.1", port=port, log_level="warning")
    )
    task = asyncio.create_task(server.serve())
    while not server.started:  # noqa: ASYNC110 (uvicorn offers no event to wait on)
        await asyncio.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        await task


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--p", type=float, required=True, help="chance of the known-good answer")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rate", type=float, default=400.0, help="words streamed a second")
    parser.add_argument("--port", type=int, default=8100)
    args = parser.parse_args()
    oracle = Oracle(p=args.p, seed=args.seed, rate=args.rate)
    uvicorn.run(oracle.app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
