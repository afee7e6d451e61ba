"""One writer and one reader of a run's record: its status and heartbeat (run_state/lifecycle.py), its recall
funnel (the recorder) and its stored answer (read only through StoredAnswer)."""

from __future__ import annotations

import ast

import pytest

from tests.foundation.import_graph import APP, found_in_app

LIFE = {"status", "heartbeat_at"}  # the fields only evidence/run_state/lifecycle.py writes


def life_writes(source: str) -> list[int]:
    """Lines of a module that write a run's status or heartbeat: Run.objects...update(status=...), a save of a
    run with those update_fields, or raw SQL that sets them."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            receiver = ast.unparse(node.func.value)
            keywords = {k.arg for k in node.keywords}
            if node.func.attr == "update" and receiver.startswith("Run.objects") and keywords & LIFE:
                found.append(node.lineno)
            fields = next((k.value for k in node.keywords if k.arg == "update_fields"), None)
            if node.func.attr == "save" and receiver.split(".")[-1] == "run" and fields is not None:
                names = {e.value for e in getattr(fields, "elts", []) if isinstance(e, ast.Constant)}
                if names & LIFE:
                    found.append(node.lineno)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            sql = " ".join(node.value.split()).lower()
            if "update evidence_run set" in sql and ("heartbeat_at" in sql or "status =" in sql):
                found.append(node.lineno)
    return sorted(set(found))


def test_only_the_run_lifecycle_writes_a_runs_status_or_heartbeat():
    assert found_in_app(life_writes, {"run_state/lifecycle.py"}) == set()
    assert life_writes((APP / "run_state" / "lifecycle.py").read_text()), "the check sees the lifecycle's writes"


@pytest.mark.parametrize(
    "source",
    [
        "Run.objects.filter(pk=1).update(status='failed')",
        "Run.objects.filter(pk=1, status='running').update(heartbeat_at=now)",
        "run.save(update_fields=['status', 'answer'])",
        "cursor.execute('UPDATE evidence_run SET heartbeat_at = now() WHERE id = %s', [1])",
    ],
)
def test_the_life_check_sees_each_way_of_writing(source):
    assert life_writes(source) == [1]
    assert life_writes("IngestFile.objects.filter(pk=1).update(status='failed')") == []


# The recorder derives the funnel (its Trajectory) from what it records; the lifecycle stores what the recorder
# hands its heartbeat.
FUNNEL_WRITERS = {"agent/core/recorder.py", "run_state/lifecycle.py"}


def funnel_writes(source: str) -> list[int]:
    """Lines that write a run's recall funnel: `X.trajectory.add(...)`, a `reached(...)` call, an assignment to
    `X.trajectory`, an `update(trajectory=...)`, or raw SQL that sets the trajectory column."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            receiver = ast.unparse(node.func.value).split(".")[-1]
            if (node.func.attr == "add" and receiver.endswith("trajectory")) or node.func.attr == "reached":
                found.append(node.lineno)
            if node.func.attr == "update" and any(k.arg == "trajectory" for k in node.keywords):
                found.append(node.lineno)
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Attribute) and t.attr == "trajectory" for t in targets):
                found.append(node.lineno)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            sql = " ".join(node.value.split()).lower()
            if "update evidence_run set" in sql and "trajectory =" in sql:
                found.append(node.lineno)
    return sorted(set(found))


def test_only_the_recorder_writes_a_runs_funnel():
    assert found_in_app(funnel_writes, FUNNEL_WRITERS) == set()
    assert funnel_writes((APP / "agent" / "core" / "recorder.py").read_text()), "the check sees the recorder's writes"


@pytest.mark.parametrize(
    "source",
    [
        "ctx.reached('inspected', ['a'])",
        "self.trajectory.add('opened', ['a'])",
        "run.trajectory = {'cited': ['a']}",
        "Run.objects.filter(pk=1).update(trajectory={})",
        "cursor.execute('UPDATE evidence_run SET trajectory = %s WHERE id = %s', ['{}', 1])",
    ],
)
def test_the_funnel_check_sees_each_way_of_writing(source):
    assert funnel_writes(source) == [1]
    reads = "seen.add('a')\nx = run.trajectory.get('cited')\nn = Trajectory.from_dict(run.trajectory).counts()"
    assert funnel_writes(reads) == []


ANSWER_READERS_ALLOWED = {"run_state/stored_answer.py"}


def raw_answer_reads(source: str) -> list[int]:
    """Lines that read a run's stored answer as a raw dict: `X.answer[...]`, `X.answer.get(...)` or
    `X.answer or {}`, where StoredAnswer.of(run) says what it holds."""
    found = []
    for node in ast.walk(ast.parse(source)):
        target = None
        if isinstance(node, ast.Subscript):
            target = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            target = node.func.value
        elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and isinstance(node.values[-1], ast.Dict):
            target = node.values[0]  # `run.answer or {}` (a string field's `t.answer or "..."` is no stored answer)
        if isinstance(target, ast.Attribute) and target.attr == "answer":
            found.append(node.lineno)
    return sorted(set(found))


def test_a_runs_answer_is_read_only_through_stored_answer():
    assert found_in_app(raw_answer_reads, ANSWER_READERS_ALLOWED) == set()


@pytest.mark.parametrize(
    "source",
    ["x = run.answer['exact_answer']", "x = run.answer.get('confidence')", "x = parent.answer or {}"],
)
def test_the_answer_check_sees_each_raw_read(source):
    assert raw_answer_reads(source) == [1]
    assert raw_answer_reads("x = StoredAnswer.of(run).exact_answer\nrun.answer = answer.as_dict()") == []
