"""A `ModelResolver` over scripted models, so a test hands the core scripts instead of writing a resolver.

    async with open_runtime(project, env, models=ScriptedResolver(model), store="memory") as runtime:
        ...

One model answers every `provider/model` ref, or a mapping gives one model per ref (a script or a
`ScriptedModel`) and an unknown ref is a `ModelNotFoundError` listing the known ones.

Titles never take a turn from a script: without `small=`, `small_model()` is None, so the core sends the title
request to the turn's own model, which recognises it (as `ScriptedServer` does) and answers with its
`title_text`; with `small=`, that model answers titles, the same way, and the test can see them arrive there.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, TypeAlias

from strata_core.llm import ModelInfo, ModelNotFoundError
from strata_core.testing.script import Turn
from strata_core.testing.scripted_model import ScriptedModel

Script: TypeAlias = Sequence[Turn | Mapping[str, Any]]
ModelOrScript: TypeAlias = ScriptedModel | Script


class ScriptedResolver:
    """Scripted models by `provider/model` ref; implements `strata_core.llm.ModelResolver`.

    - `ScriptedResolver(model)`: `model` answers every ref and is the default.
    - `ScriptedResolver({"anthropic/claude-sonnet-4-5": [...turns], "openai/gpt-5": ScriptedModel(...)})`:
      a script becomes a `ScriptedModel` named by its ref; a model's own `info.ref` must be its key. `default`
      names the default model (else the first entry).
    - `small`: the model for small calls (titles), a ref of the mapping or a `ScriptedModel`; default none.
    """

    model_class: ClassVar[type[ScriptedModel]] = ScriptedModel
    """What a script given instead of a model becomes (strata-providers' resolver makes its wire double)."""

    def __init__(
        self,
        models: ModelOrScript | Mapping[str, ModelOrScript],
        *,
        default: str | None = None,
        small: str | ScriptedModel | None = None,
    ) -> None:
        if isinstance(models, Mapping):
            self.models: dict[str, ScriptedModel] = {ref: self._model_for(ref, value) for ref, value in models.items()}
            self._catch_all: ScriptedModel | None = None
        else:
            if default is not None:
                raise ValueError("ScriptedResolver: `default` picks a model of a mapping; one model is the default")
            single = models if isinstance(models, ScriptedModel) else self.model_class(models)
            self.models = {single.info.ref: single}
            self._catch_all = single
        self._default_ref = self._known(default, "default") if default is not None else next(iter(self.models), None)
        self.small = self._small(small)

    # -- llm.ModelResolver -------------------------------------------------------------------------------

    def resolve(self, ref: str) -> ScriptedModel:
        model = self.models.get(ref, self._catch_all)
        if model is None:
            raise ModelNotFoundError(self._not_found(ref))
        return model

    def default_model(self) -> ScriptedModel:
        if self._default_ref is None:
            raise ModelNotFoundError("ScriptedResolver has no models: give it a ScriptedModel or a mapping of refs")
        return self.models[self._default_ref]

    def small_model(self, provider_id: str) -> ScriptedModel | None:
        # One small model for every provider: a test wants to know where titles go, not per-provider defaults.
        return self.small

    # -- for the test ------------------------------------------------------------------------------------

    def assert_scripts_consumed(self) -> None:
        """`assert_script_consumed()` on every model (the small one included)."""
        for model in {id(m): m for m in [*self.models.values(), self.small] if m is not None}.values():
            model.assert_script_consumed()

    def _small(self, small: str | ScriptedModel | None) -> ScriptedModel | None:
        if isinstance(small, str):
            return self.models[self._known(small, "small")]
        if small is not None:
            self.models.setdefault(small.info.ref, small)  # so resolving its ref (as a title agent may) finds it
        return small

    def _known(self, ref: str, what: str) -> str:
        if ref not in self.models:
            raise ValueError(f"ScriptedResolver: {what}={ref!r} is not one of the models: {', '.join(self.models)}")
        return ref

    def _not_found(self, ref: str) -> str:
        known = ", ".join(sorted(self.models)) or "none"
        close = difflib.get_close_matches(ref, list(self.models), n=1)
        hint = f' Did you mean "{close[0]}"?' if close else ""
        return f'Model not found: "{ref}". The ScriptedResolver knows: {known}.{hint}'

    def _model_for(self, ref: str, value: ModelOrScript) -> ScriptedModel:
        provider_id, model_id = _split(ref)
        if not isinstance(value, ScriptedModel):
            return self.model_class(value, info=ModelInfo(provider_id=provider_id, id=model_id, name=ref))
        if value.info.ref != ref:
            # The loop stores the model's own ref on each message and resolves it again for the next step.
            raise ValueError(
                f"ScriptedResolver: the model under {ref!r} calls itself {value.info.ref!r}; give it "
                f'info=ModelInfo("{provider_id}", "{model_id}") or pass its script instead of the model'
            )
        return value


def _split(ref: str) -> tuple[str, str]:
    provider_id, _, model_id = ref.partition("/")
    if not provider_id or not model_id:
        raise ValueError(f"ScriptedResolver: {ref!r} is not a `provider/model` ref (e.g. 'scripted/model')")
    return provider_id, model_id
