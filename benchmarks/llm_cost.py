"""What the LLM drafting strategy would send and cost on real papers, without a provider.

Each corpus paper is drafted by the LLM strategy (`--model`, default gpt-4o-mini) against a
stand-in OpenAI-compatible server on loopback. The stand-in answers every request with a
schema-valid reply built from what the offline heuristic drafts for the same paper, so the
flow takes every step it would take with a real model: one call to classify the sections,
one per experiment section (or piece of a long one, table and figure crops attached when the
model can see), one for the takeaways, one per drafted section to refine. It reports usage
the way a provider would: prompt tokens counted by litellm's tokenizer for MODEL on the
request as sent (images included), completion tokens on the reply. The client prices each
call from litellm's bundled price table, exactly as in production.

What this measures is the request side, which a real run shares: how many calls, how many
prompt tokens. The replies are the heuristic's, so completion tokens are a floor: a real model
writes longer tasks, and a reasoning model (o3-mini, which EXP-Bench used) also bills hidden
reasoning tokens at the output price. `--output-factor` prices that in as a multiple.

Usage: python benchmarks/llm_cost.py [CORPUS_DIR] [--model M] [--papers N] [--output-factor F]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm

from expcurate.records import ParsedPaper, TaskDraft
from extractors.llm import LLMClient
from extractors.paper import parse_pdf
from extractors.tasks.heuristic import draft as heuristic_draft
from extractors.tasks.llm import draft_with_llm, prompts, rule_kinds
from extractors.tasks.llm_inputs import cited_labels
from extractors.tasks.refine import refine_prompt

ROOT = Path(__file__).resolve().parents[1]
EXPBENCH_USD_PER_PAPER = 60.0  # EXP-Bench's reported model spend per paper (o3-mini)


def _task_json(task: TaskDraft) -> dict[str, Any]:
    return {
        "question": task.question,
        "method": task.method,
        "expected_outcome": task.expected_outcome,
        "subsection_source": task.subsection_source,
        "design_complexity": task.design_complexity.model_dump(mode="json"),
        "evidence": [e.label for e in task.evidence],
    }


class StandIn:
    """Replies for one paper, chosen by the system prompt of the request."""

    def __init__(self, paper: ParsedPaper) -> None:
        self.paper = paper
        self.drafts = heuristic_draft(paper)
        self.served: set[str] = set()
        self.images = 0  # image parts received
        self.texts = {name: p.text for name, p in prompts().items()}
        self.texts["refine"] = refine_prompt().text

    def reply(self, body: dict[str, Any]) -> str:
        messages = body.get("messages", [])
        self.images += sum(
            1
            for m in messages
            if isinstance(m.get("content"), list)
            for part in m["content"]
            if isinstance(part, dict) and part.get("type") == "image_url"
        )
        # o-series models take the system prompt as a "developer" message: find it by its text.
        texts = [_text(m) for m in messages]
        step = next(
            (name for name, text in self.texts.items() if any(t.startswith(text) for t in texts)),
            "",
        )
        user = next((_text(m) for m in reversed(messages) if m.get("role") == "user"), "")
        if step == "classify":
            kinds = rule_kinds(self.paper)
            return json.dumps({"sections": [{"id": i, "kind": k} for i, k in enumerate(kinds)]})
        if step == "draft":
            cited = set(cited_labels(user))
            tasks = [
                t
                for t in self.drafts.tasks
                if t.key not in self.served and any(e.label in cited for e in t.evidence)
            ]
            self.served.update(t.key for t in tasks)
            return json.dumps({"tasks": [_task_json(t) for t in tasks]})
        if step == "takeaways":
            return json.dumps(
                {
                    "main_takeaways": self.drafts.main_takeaways,
                    "follow_up_work_ideas": [
                        i.model_dump(mode="json") for i in self.drafts.follow_up_work_ideas
                    ],
                }
            )
        if step == "refine":
            listed = json.loads(user[user.index("[", user.index("to complete:")) :])
            return json.dumps(
                {
                    "tasks": [
                        {
                            "id": t["id"],
                            "expected_outcome": t["expected_outcome"],
                            "method": t["method"],
                            "design_complexity": t["design_complexity"],
                        }
                        for t in listed
                    ]
                }
            )
        return "{}"


def _text(message: dict[str, Any]) -> str:
    content = message.get("content", "")
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))


def serve(reply: Callable[[dict[str, Any]], str], model: str) -> ThreadingHTTPServer:
    """An OpenAI-compatible chat endpoint on loopback that counts tokens as `model` would."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            content = reply(body)
            prompt_tokens = litellm.token_counter(model=model, messages=body.get("messages", []))
            completion_tokens = litellm.token_counter(model=model, text=content)
            payload = {
                "id": "stand-in",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                },
            }
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus", nargs="?", default=os.environ.get("EXPCURATE_CORPUS_DIR"))
    parser.add_argument("--model", default="gpt-4o-mini")
    parser.add_argument("--papers", type=int, default=0, help="only the first N papers")
    parser.add_argument("--output-factor", type=float, default=1.0)
    args = parser.parse_args()
    corpus = Path(args.corpus or ROOT.parent / "shared" / "corpus")
    if not corpus.is_dir():
        sys.exit(f"no corpus at {corpus}; pass its path")
    folders = sorted(p for p in corpus.iterdir() if (p / "paper.pdf").is_file())
    folders = folders[: args.papers] if args.papers else folders
    info = litellm.get_model_info(args.model)
    price_in = float(info.get("input_cost_per_token") or 0.0)
    price_out = float(info.get("output_cost_per_token") or 0.0)
    print(
        f"model {args.model}: ${price_in * 1e6:.2f} / ${price_out * 1e6:.2f} per million "
        f"prompt / completion tokens; vision {bool(info.get('supports_vision'))}"
    )
    print(f"{'paper':32s} {'calls':>5s} {'prompt':>8s} {'compl.':>7s} {'images':>6s} {'USD':>7s}")
    totals = {"calls": 0, "prompt": 0, "completion": 0, "images": 0, "usd": 0.0}
    for folder in folders:
        with tempfile.TemporaryDirectory() as tmp:
            images = Path(tmp) / "images"
            paper = parse_pdf(folder / "paper.pdf", images)
            stand_in = StandIn(paper)
            server = serve(stand_in.reply, args.model)
            try:
                client = LLMClient(
                    f"openai/{args.model}",
                    api_base=f"http://127.0.0.1:{server.server_port}/v1",
                    api_key="stand-in",
                    budget_usd=1_000.0,
                    vision=bool(info.get("supports_vision")),
                    price_input_per_mtok=price_in * 1e6,
                    price_output_per_mtok=price_out * 1e6 * args.output_factor,
                    max_retries=0,
                )
                result = draft_with_llm(paper, client, images_root=Path(tmp))
            finally:
                server.shutdown()
        usage = result.usage
        sent = stand_in.images
        row = {
            "calls": usage.calls,
            "prompt": usage.prompt_tokens,
            "completion": usage.completion_tokens,
            "images": sent,
            "usd": usage.cost_usd,
        }
        for k, v in row.items():
            totals[k] += v
        print(
            f"{folder.name:32s} {usage.calls:5d} {usage.prompt_tokens:8d} "
            f"{usage.completion_tokens:7d} {sent:6d} {usage.cost_usd:7.3f}"
        )
    n = max(1, len(folders))
    print(
        f"\n{len(folders)} papers: {totals['calls']} calls, {totals['prompt']} prompt and "
        f"{totals['completion']} completion tokens; ${totals['usd']:.2f} in all, "
        f"${totals['usd'] / n:.3f} per paper (output priced x{args.output_factor:g}); "
        f"EXP-Bench reports about ${EXPBENCH_USD_PER_PAPER:.0f} per paper, "
        f"{EXPBENCH_USD_PER_PAPER / max(totals['usd'] / n, 1e-9):.0f}x this"
    )


if __name__ == "__main__":
    main()
