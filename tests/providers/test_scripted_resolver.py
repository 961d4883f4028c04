"""The scripted resolver: scripted models by `provider/model` ref, for a whole runtime without a catalogue."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest

from strata_core import llm
from strata_core.engine.prompt_input import PromptRequest, TextInput
from strata_core.engine.title import catalogue_titles
from strata_core.message import TextPart
from strata_core.runtime import Runtime, open_runtime
from strata_providers.testing import ScriptedModel, ScriptedResolver

pytestmark = pytest.mark.anyio


def test_one_model_answers_every_ref_and_is_the_default() -> None:
    model = ScriptedModel([])
    resolver = ScriptedResolver(model)
    assert resolver.resolve("anthropic/claude-sonnet-4-5") is model
    assert resolver.resolve(model.info.ref) is model and resolver.default_model() is model
    assert resolver.small_model("anthropic") is None


def test_a_script_alone_becomes_the_one_model() -> None:
    resolver = ScriptedResolver([{"text": "hi"}])
    assert resolver.default_model().script[0].text == "hi"
    assert resolver.resolve("any/thing") is resolver.default_model()


def test_a_mapping_gives_each_ref_its_own_model_named_by_the_ref() -> None:
    gpt = ScriptedModel([], info=llm.ModelInfo("openai", "gpt-5"))
    resolver = ScriptedResolver({"anthropic/claude-sonnet-4-5": [{"text": "from claude"}], "openai/gpt-5": gpt})
    claude = resolver.resolve("anthropic/claude-sonnet-4-5")
    assert claude.info.ref == "anthropic/claude-sonnet-4-5" and claude.script[0].text == "from claude"
    assert resolver.resolve("openai/gpt-5") is gpt
    assert resolver.default_model() is claude  # the first entry, unless `default` says otherwise
    assert ScriptedResolver({"a/x": [], "b/y": []}, default="b/y").default_model().info.ref == "b/y"


def test_a_ref_split_at_its_first_slash_keeps_the_rest_as_the_model_id() -> None:
    model = ScriptedResolver({"openrouter/anthropic/claude": []}).default_model()
    assert (model.info.provider_id, model.info.id) == ("openrouter", "anthropic/claude")


def test_an_unknown_ref_is_a_model_not_found_error_listing_the_known_ones() -> None:
    resolver = ScriptedResolver({"openai/gpt-5": [], "anthropic/claude-sonnet-4-5": []})
    with pytest.raises(llm.ModelNotFoundError) as caught:
        resolver.resolve("openai/gpt-4")
    assert str(caught.value) == (
        'Model not found: "openai/gpt-4". The ScriptedResolver knows: anthropic/claude-sonnet-4-5, openai/gpt-5. '
        'Did you mean "openai/gpt-5"?'
    )


def test_an_empty_mapping_has_no_default_model() -> None:
    with pytest.raises(llm.ModelNotFoundError, match="ScriptedResolver has no models"):
        ScriptedResolver({}).default_model()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: ScriptedResolver({"a/x": ScriptedModel([])}), r"the model under 'a/x' calls itself 'scripted/"),
        (lambda: ScriptedResolver({"no-slash": []}), r"'no-slash' is not a `provider/model` ref"),
        (lambda: ScriptedResolver({"a/x": []}, default="a/y"), r"default='a/y' is not one of the models: a/x"),
        (lambda: ScriptedResolver({"a/x": []}, small="a/y"), r"small='a/y' is not one of the models: a/x"),
        (lambda: ScriptedResolver(ScriptedModel([]), default="a/x"), r"`default` picks a model of a mapping"),
    ],
)
def test_a_resolver_that_could_not_work_is_refused_when_built(make: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()  # type: ignore[operator]


def test_the_small_model_is_a_ref_of_the_mapping_or_a_model_of_its_own() -> None:
    resolver = ScriptedResolver({"a/big": [], "a/small": []}, small="a/small")
    assert resolver.small_model("a") is resolver.resolve("a/small")
    titles = ScriptedModel([], info=llm.ModelInfo("t", "titles"))
    with_own = ScriptedResolver(ScriptedModel([]), small=titles)
    assert with_own.small_model("anything") is titles and with_own.resolve("t/titles") is titles


def test_assert_scripts_consumed_checks_every_model() -> None:
    resolver = ScriptedResolver({"a/x": [], "a/y": [{"text": "never asked"}]})
    with pytest.raises(AssertionError, match="1 of 1 scripted turn"):
        resolver.assert_scripts_consumed()


def test_it_is_a_model_resolver() -> None:
    resolver: llm.ModelResolver = ScriptedResolver(ScriptedModel([]))
    assert resolver.default_model().info.ref == "scripted/scripted-model"


# -- through a runtime -----------------------------------------------------------------------------------


def runtime_on(directory: Path, resolver: ScriptedResolver) -> AbstractAsyncContextManager[Runtime]:
    return open_runtime(directory, {"HOME": str(directory)}, models=resolver, store="memory")


async def test_a_turn_runs_on_the_resolvers_default_model_and_its_title_takes_no_turn(tmp_path: Path) -> None:
    model = ScriptedModel([{"text": "Hello."}], title_text="Greeting")
    resolver = ScriptedResolver(model)
    async with open_runtime(
        tmp_path, {"HOME": str(tmp_path)}, models=resolver, store="memory", title_model=catalogue_titles(resolver)
    ) as rt:
        session = await rt.sessions.create()
        answer = await rt.loop.prompt(PromptRequest(session.id, [TextInput("hi")]))
        assert [p.text for p in answer.parts if isinstance(p, TextPart)] == ["Hello."]
    # Leaving the runtime let the background title finish: it went to the same model, outside the script.
    assert len(model.main_requests) == 1 and len(model.title_requests) == 1 and model.turns_used == 1
    model.assert_script_consumed()


async def test_a_small_model_answers_the_titles(tmp_path: Path) -> None:
    main = ScriptedModel([{"text": "Hello."}])
    small = ScriptedModel([], info=llm.ModelInfo("scripted", "small"), title_text="Greeting")
    resolver = ScriptedResolver(main, small=small)
    async with open_runtime(
        tmp_path, {"HOME": str(tmp_path)}, models=resolver, store="memory", title_model=catalogue_titles(resolver)
    ) as rt:
        session = await rt.sessions.create()
        await rt.loop.prompt(PromptRequest(session.id, [TextInput("hi")]))
    assert main.title_requests == [] and len(small.title_requests) == 1
    assert small.title_requests[0].small and small.turns_used == 0


async def test_a_turn_on_a_mapped_ref_stays_on_that_model_across_steps(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("alpha\n")
    script: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "read", "arguments": {"filePath": str(notes)}}]},
        {"text": "It says alpha."},
    ]
    resolver = ScriptedResolver({"other/model": [], "anthropic/claude-sonnet-4-5": script})
    claude = resolver.resolve("anthropic/claude-sonnet-4-5")
    async with runtime_on(tmp_path, resolver) as rt:
        session = await rt.sessions.create()
        request = PromptRequest(session.id, [TextInput("read it")], model="anthropic/claude-sonnet-4-5")
        answer = await rt.loop.prompt(request)
    assert [p.text for p in answer.parts if isinstance(p, TextPart)] == ["It says alpha."]
    assert claude.turns_used == 2 and resolver.resolve("other/model").requests == []


async def test_a_turn_asking_for_an_unknown_ref_fails_naming_the_known_ones(tmp_path: Path) -> None:
    resolver = ScriptedResolver({"a/x": []})
    async with runtime_on(tmp_path, resolver) as rt:
        session = await rt.sessions.create()
        with pytest.raises(llm.ModelNotFoundError, match=r'"a/y"\. The ScriptedResolver knows: a/x\. Did you mean'):
            await rt.loop.prompt(PromptRequest(session.id, [TextInput("hi")], model="a/y"))
