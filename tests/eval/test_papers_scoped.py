"""The papers benchmark asks over the whole collection, or (--scoped) each question about its own paper only."""

from __future__ import annotations

from evidence.eval.papers_bench import Papers

QUESTIONS = [
    {"qid": "q1", "question": "How many nodes?", "answers": ["280M"], "type": "number", "paper_title": "Graph",
     "evidence": [{"docid": "N18-3011", "quote": "more than 280M nodes"}]},
    {"qid": "q2", "question": "Who funded it?", "answers": ["unanswerable"], "type": "unanswerable",
     "paper_title": "Graph", "evidence": []},
    {"qid": "q3", "question": "Which tool?", "answers": ["X"], "type": "named", "paper_title": "Other",
     "evidence": [{"docid": "", "quote": "we used X"}]},  # a CSV quote: no docid, so nothing to scope to
]  # fmt: skip


def test_a_scoped_evaluation_asks_each_question_about_its_own_paper():
    whole, scoped = Papers(QUESTIONS, "c"), Papers(QUESTIONS, "c", scoped=True)
    assert [q.scope for q in whole.questions()] == [(), (), ()]
    assert [q.scope for q in scoped.questions()] == [("N18-3011",), ("N18-3011",), ()]
    assert whole.data_key != scoped.data_key  # another evaluation, never resumed as the other
