"""The repo map's graph follows the index edit by edit: after any sequence of edits the updated
graph is the graph built from scratch, and ranks the same definitions (checked over random
edits of a small workspace)."""

from __future__ import annotations

import random
from pathlib import Path

from shard_core.capabilities.code_index import CodeIndex
from shard_core.capabilities.code_index.repo_map import Graph, pagerank, ranked_definitions

NAMES = ["alpha", "beta", "gamma", "delta", "omega"]


def source(rng: random.Random) -> str:
    defined = rng.sample(NAMES, rng.randint(0, 2))
    called = rng.sample(NAMES, rng.randint(0, 3))
    body = "".join(f"    {c}()\n" for c in called) or "    pass\n"
    return "".join(f"def {d}():\n{body}\n" for d in defined) + f"def main():\n{body}"


def test_an_updated_graph_is_the_graph_built_from_scratch(tmp_path: Path) -> None:
    rng = random.Random(23)
    for i in range(8):
        (tmp_path / f"m{i}.py").write_text(source(rng))
    index = CodeIndex(tmp_path)
    index.refresh()
    graph = Graph(index.snapshot())
    for _ in range(60):
        changed = tmp_path / f"m{rng.randrange(8)}.py"
        changed.write_text(source(rng))
        index.update([changed])
        graph = graph.update(index.snapshot())
        fresh = Graph(index.snapshot())
        assert [sorted(row) for row in graph.out] == [sorted(row) for row in fresh.out]
        assert [sorted(row) for row in graph.uses] == [sorted(row) for row in fresh.uses]
        rank = pagerank(graph, ["m0.py"])
        assert rank == pagerank(fresh, ["m0.py"])
        files = index.snapshot()  # (scored by numbered pairs, some left unused by the edits)
        assert sorted(ranked_definitions(files, graph, rank), key=repr) == sorted(
            ranked_definitions(files, fresh, rank), key=repr
        )


def test_a_file_added_or_removed_rebuilds_the_graph(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def alpha():\n    beta()\n")
    (tmp_path / "b.py").write_text("def beta():\n    pass\n")
    index = CodeIndex(tmp_path)
    index.refresh()
    graph = Graph(index.snapshot())
    assert graph.out == [[(1, 1.0)], []]
    (tmp_path / "c.py").write_text("def gamma():\n    alpha()\n")
    index.update([tmp_path / "c.py"])
    grown = graph.update(index.snapshot())
    assert grown is not graph
    assert grown.nodes == ["a.py", "b.py", "c.py"]
    assert grown.out == [[(1, 1.0)], [], [(0, 1.0)]]


def test_a_warm_start_reaches_the_same_ranking(tmp_path: Path) -> None:
    rng = random.Random(5)
    for i in range(12):
        (tmp_path / f"m{i}.py").write_text(source(rng))
    index = CodeIndex(tmp_path)
    index.refresh()
    graph = Graph(index.snapshot())
    before = pagerank(graph, ["m3.py"])
    (tmp_path / "m3.py").write_text(source(rng))
    index.update([tmp_path / "m3.py"])
    graph = graph.update(index.snapshot())
    cold, warm = pagerank(graph, ["m3.py"]), pagerank(graph, ["m3.py"], before)
    assert sum(abs(a - b) for a, b in zip(cold, warm, strict=True)) < 1e-3
