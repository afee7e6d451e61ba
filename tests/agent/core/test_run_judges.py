"""System 1 providers chosen by configuration in a real run: local, jev and llm (against the fake servers)."""

from __future__ import annotations

import json

import pytest

from evidence.agent.core.judges import JudgeSpec, JudgeUnavailable, make_judge
from evidence.models import Judgment, Run
from evidence.run_state import RunConfig
from evidence.services.runs import execute_run
from tests.agent.test_loop import make_run
from tests.judge.fake_servers import KEY, serve

pytestmark = pytest.mark.django_db


@pytest.fixture
def fake():
    with serve() as running:
        yield running


@pytest.mark.parametrize(("provider", "path"), [("jev", "/v1/systemone"), ("llm", "/v1/chat/completions")])
def test_a_dual_run_asks_the_configured_provider(library, settings, fake, provider, path):
    base, requests = fake
    settings.EVIDENCE_JUDGE = provider
    settings.EVIDENCE_JEV_URL, settings.EVIDENCE_JEV_KEY = base, KEY
    settings.EVIDENCE_JUDGE_LLM_URL, settings.EVIDENCE_JUDGE_LLM_KEY = base + "/v1", KEY
    settings.EVIDENCE_JUDGE_LLM_MODEL = "any-chat-model"
    run = make_run(library)
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.status in {Run.Status.ANSWERED, Run.Status.NO_NEW_PASSAGES, Run.Status.NOT_FOUND}, run.error
    assert requests and {r["path"] for r in requests} == {path}
    judgments = Judgment.objects.filter(run=run)
    assert judgments.exists() and set(judgments.values_list("provider", flat=True)) == {provider}


def test_the_runs_configuration_overrides_the_setting(library, settings, fake):
    base, requests = fake
    settings.EVIDENCE_JUDGE = "local"
    settings.EVIDENCE_JEV_URL, settings.EVIDENCE_JEV_KEY = base, KEY
    run = make_run(library, config={"judge": "jev"})
    execute_run(run.pk)
    assert requests and set(Judgment.objects.filter(run=run).values_list("provider", flat=True)) == {"jev"}


def test_a_wrong_key_fails_the_run_with_a_sentence_naming_it(library, settings, fake):
    base, _ = fake
    settings.EVIDENCE_JUDGE, settings.EVIDENCE_JEV_URL, settings.EVIDENCE_JEV_KEY = "jev", base, "wrong"
    run = make_run(library)
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED
    assert "key was refused (401)" in run.error


def test_a_provider_without_its_endpoint_is_refused_in_plain_words(settings):
    settings.EVIDENCE_JEV_URL = ""
    with pytest.raises(JudgeUnavailable, match="EVIDENCE_JEV_URL"):
        make_judge(JudgeSpec.of(RunConfig.parse({"judge": "jev"})))
    settings.EVIDENCE_JUDGE = "oracle"
    with pytest.raises(JudgeUnavailable, match="not a System 1 provider"):
        JudgeSpec.of(RunConfig())


def test_the_local_judge_is_the_default(settings):
    settings.EVIDENCE_JUDGE = "local"
    assert make_judge(JudgeSpec.of(RunConfig())).name == "local"


def test_a_remote_judge_is_asked_even_for_a_scoped_paper(library, settings, fake):
    from evidence.models import RunEvent
    from tests.agent.test_loop import PAPER_MD
    from tests.ingesting import ingest_now

    base, requests = fake
    settings.EVIDENCE_JUDGE, settings.EVIDENCE_JEV_URL, settings.EVIDENCE_JEV_KEY = "jev", base, KEY
    ingest_now(library, [("paper.md", PAPER_MD)])
    paper = library.documents.get(title="Robust sentiment models")
    run = make_run(library, question="What dataset do they use?", config={"scope_docids": [paper.docid]})
    execute_run(run.pk)
    assert requests  # the section scorer is the local provider's: the remote one reads through localization
    assert not RunEvent.objects.filter(run=run, kind="paper_reading").exists()
    assert set(Judgment.objects.filter(run=run).values_list("provider", flat=True)) == {"jev"}


def test_a_judge_spec_travels_to_workers_as_json_and_reads_back_as_the_same_spec():
    spec = JudgeSpec.of(RunConfig())
    assert isinstance(spec, JudgeSpec) and spec.name == "local" and spec.block_kind == "sentence"
    wire = json.loads(json.dumps(spec.as_json()))  # what Celery carries
    assert JudgeSpec.from_json(wire) == spec and JudgeSpec.from_json(spec) is spec
    # A message written before the spec was typed (a plain dict, fields missing) reads through the same adapter.
    assert JudgeSpec.from_json({"name": "local"}) == JudgeSpec("local", {}, "sentence")
    assert JudgeSpec.from_json({"heads": None, "block_kind": "paragraph"}).block_kind == "paragraph"
