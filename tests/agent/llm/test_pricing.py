"""Prices, actual cost and worst-case cost."""

import pytest

from evidence.agent.llm import ChatMessage, ChatRequest, Price, UnknownModelPrice, Usage, cost, price_for
from evidence.agent.llm.pricing import FREE, estimate_tokens, is_loopback, worst_case_cost


def test_it_prices_cached_input_at_the_cached_rate():
    usage = Usage(input_tokens=1_000_000, cached_tokens=400_000, output_tokens=100_000)
    # gpt-4o: $2.50 fresh, $1.25 cached, $10 out per 1M
    assert cost(usage, "gpt-4o") == pytest.approx(0.6 * 2.50 + 0.4 * 1.25 + 0.1 * 10.00)


def test_it_matches_snapshot_and_prefixed_names():
    assert price_for("gpt-4o-mini-2024-07-18") == price_for("gpt-4o-mini")
    assert price_for("openai/GPT-4.1") == price_for("gpt-4.1")
    assert price_for("gpt-4o-mini") != price_for("gpt-4o")


def test_it_refuses_an_unknown_model_on_a_paid_endpoint():
    with pytest.raises(UnknownModelPrice, match="LLM_PRICES"):
        price_for("mystery-70b", base_url="https://api.example.com/v1")


def test_it_counts_an_unknown_model_on_a_loopback_server_as_free():
    assert price_for("qwen2.5-7b-instruct", base_url="http://127.0.0.1:8000/v1") == FREE
    assert price_for("llama3", base_url="http://localhost:11434/v1") == FREE
    assert not is_loopback("https://api.openai.com/v1")


def test_it_takes_prices_from_the_environment_and_from_config(monkeypatch):
    monkeypatch.setenv("LLM_PRICES", '{"mystery-70b": [0.5, 0.25, 1.5]}')
    assert price_for("mystery-70b", base_url="https://api.example.com/v1") == Price(0.5, 0.25, 1.5)
    assert price_for("mystery-70b", prices={"mystery-70b": Price(1, 1, 1)}) == Price(1, 1, 1)


def test_it_rejects_a_malformed_price_variable(monkeypatch):
    monkeypatch.setenv("LLM_PRICES", "gpt-4o=3")
    with pytest.raises(ValueError, match="LLM_PRICES must be a JSON object"):
        price_for("anything")


def test_worst_case_is_estimated_prompt_at_input_price_plus_max_tokens_at_output_price():
    request = ChatRequest(model="gpt-4o", messages=(ChatMessage("user", "a" * 4000),), max_tokens=1000)
    worst = worst_case_cost(request)
    prompt_tokens = (worst - 1000 * 10.00 / 1e6) * 1e6 / 2.50
    assert 1000 <= prompt_tokens <= 1020  # 4,000 characters plus the JSON around them, at 4 per token
    assert worst_case_cost(request, price=FREE) == 0


def test_it_counts_non_ascii_characters_one_token_each():
    assert estimate_tokens("abcdabcd") == 2
    assert estimate_tokens("咖啡因延迟睡眠") == 7
