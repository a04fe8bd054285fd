"""Evidence with provenance: every number a claim uses is read from a chapter's typed results by attribute, through
:class:`Evidence`, which records the chapter and the path of each number it hands out. So the page cannot drift from
the chapters, a test can check each number against its source, and a renamed field is a :class:`SchemaError` (a bug,
raised) rather than a :class:`Missing` number (a run that did not compute it, shown as untestable).

``e.of("heterogeneity").runs["published"].agreement.tau_median`` is the published run's median τ: attributes are the
results type's fields, ``[key]`` looks up a dict's key or a list's index, ``.where(design=..., given=...)`` picks the
one record of a list whose fields match. A number, a string or a list of them comes back as a plain value (and is
recorded); anything else comes back as a node to read further.

:meth:`Evidence.schema` builds the same object over the results *types* instead of stored results: every read then
checks the field against the type and hands back a typed stand-in value, so a unit test can run every claim's
evaluator without any chapter having run and fail on a field that no longer exists or is not typed.
"""
from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from typing import Any, Callable

from pydantic import BaseModel

from rmbook.analysis.claims.rules import Part, Said, bh_floor, recording_tests
from rmlib.errors import RmlibError

__all__ = ["Missing", "SchemaError", "Ref", "Evidence", "Node", "follow", "step_path", "evaluate_part",
           "untestable", "Say", "fdr_floor"]


class Missing(LookupError):
    """A number the claim needs is not in the chapter's results (or the chapter has not run)."""


class SchemaError(RmlibError, TypeError):
    """The claims code reads a field that the chapter's results type does not declare, or declares without a type:
    a bug in the code, never a property of one run."""


@dataclass(frozen=True)
class Ref:
    """One number (or label) taken from a chapter's results: where it came from (``path`` to read, ``steps`` to
    follow with :func:`follow`) and its value."""

    chapter: str
    path: str
    value: Any
    steps: tuple = ()


def step_path(steps: tuple) -> str:
    """``(("attr", "runs"), ("key", "published"), ("attr", "r"))`` as ``runs["published"].r``."""
    out = ""
    for kind, arg in steps:
        if kind == "attr":
            out += ("." if out else "") + arg
        elif kind in ("key", "index"):
            out += f"[{arg!r}]" if kind == "key" else f"[{arg}]"
        else:
            out += ".where(" + ", ".join(f"{k}={v!r}" for k, v in arg) + ")"
    return out


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name)


def follow(data: Any, steps) -> Any:
    """Follow recorded ``steps`` into results: a typed object or its stored JSON (where fields are keys)."""
    cur = data
    for kind, arg in steps:
        if kind == "attr":
            cur = _get(cur, arg)
        elif kind in ("key", "index"):
            cur = cur[arg]
        else:
            hits = [r for r in cur if all(_get(r, k) == v for k, v in (tuple(c) for c in arg))]
            if len(hits) != 1:
                raise Missing(f"{len(hits)} records match {arg}")
            cur = hits[0]
    return cur


_SCALARS = (int, float, str, bool)
_STAND_INS = {bool: True, int: 0, float: 0.5, str: "x"}  # int 0: no unit counts that exceed their total


def _is_leaf(value: Any) -> bool:
    if isinstance(value, _SCALARS):
        return True
    return isinstance(value, (list, tuple)) and all(isinstance(v, _SCALARS) for v in value)


def _strip(annotation: Any) -> Any:
    """An annotation without ``Annotated[...]`` and without ``None`` in a union."""
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return _strip(args[0])
    return annotation


def _stand_in(annotation: Any) -> Any:
    """A value of a scalar annotation, or ``...`` when the annotation is not a typed scalar (or a list of them)."""
    a = _strip(annotation)
    if typing.get_origin(a) is typing.Literal:
        return typing.get_args(a)[0]
    if a in _STAND_INS:
        return _STAND_INS[a]
    if typing.get_origin(a) in (list, tuple):
        inner = [_stand_in(x) for x in typing.get_args(a) if x is not Ellipsis]
        return inner if inner and all(v is not ... for v in inner) else ...
    return ...


class Node:
    """A place inside one chapter's results (or, in schema mode, inside its type) that hands out numbers."""

    __slots__ = ("_e", "_chapter", "_steps", "_value", "_type")

    def __init__(self, e: Evidence, chapter: str, steps: tuple, value: Any = None, annotation: Any = None):
        self._e, self._chapter, self._steps, self._value, self._type = e, chapter, steps, value, annotation

    @property
    def _path(self) -> str:
        return f"{self._chapter}.{step_path(self._steps)}"

    def _child(self, step: tuple, value: Any = None, annotation: Any = None) -> Any:
        steps = self._steps + (step,)
        if self._e.schema_mode:
            stand_in = _stand_in(annotation)
            if stand_in is not ...:
                self._e.refs.append(Ref(self._chapter, step_path(steps), stand_in, steps))
                return stand_in
            a = _strip(annotation)
            if not (isinstance(a, type) and issubclass(a, BaseModel)) and typing.get_origin(a) not in (dict, list):
                raise SchemaError(f"the claims read {self._chapter}.{step_path(steps)}, typed {annotation!r}: declare "
                                  f"it as a number, a string, a record or a dict/list of them")
            return Node(self._e, self._chapter, steps, annotation=a)
        if value is None:
            raise Missing(f"the chapter {self._chapter} did not compute {step_path(steps)} in this run")
        if _is_leaf(value):
            value = list(value) if isinstance(value, tuple) else value
            self._e.refs.append(Ref(self._chapter, step_path(steps), value, steps))
            return value
        return Node(self._e, self._chapter, steps, value=value)

    def _fields(self) -> dict:
        cls = self._type if self._e.schema_mode else type(self._value)
        if not (isinstance(cls, type) and issubclass(cls, BaseModel)):
            raise SchemaError(f"{self._path} is a {getattr(cls, '__name__', cls)}, not a results record: "
                              f"read it with [key]")
        return cls.model_fields

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        fields = self._fields()
        if name not in fields:
            raise SchemaError(f"the claims read {self._path}.{name}, but its type declares only "
                              f"{', '.join(fields)}")
        if self._e.schema_mode:
            return self._child(("attr", name), annotation=fields[name].annotation)
        return self._child(("attr", name), getattr(self._value, name))

    def _inner(self) -> tuple:
        a = self._type
        origin, args = typing.get_origin(a), typing.get_args(a)
        if origin not in (dict, list):
            raise SchemaError(f"{self._path} is not a dict or a list (it is {a!r})")
        return origin, args

    def __getitem__(self, key: Any) -> Any:
        if self._e.schema_mode:
            origin, args = self._inner()
            key_type = _strip(args[0]) if origin is dict else int
            if typing.get_origin(key_type) is typing.Literal and key not in typing.get_args(key_type):
                raise SchemaError(f"{self._path}[{key!r}]: the keys are {typing.get_args(key_type)}")
            return self._child(("key" if origin is dict else "index", key), annotation=args[-1])
        if isinstance(self._value, dict):
            if key not in self._value:
                raise Missing(f"no {key!r} in {self._path} (it has {', '.join(map(str, self._value)) or 'nothing'})")
            return self._child(("key", key), self._value[key])
        if isinstance(self._value, list) and isinstance(key, int):
            if not -len(self._value) <= key < len(self._value):
                raise Missing(f"{self._path} has {len(self._value)} entries, not {key + 1}")
            return self._child(("index", key), self._value[key])
        raise SchemaError(f"{self._path} is a {type(self._value).__name__}: it has no [{key!r}]")

    def where(self, **conds: Any) -> Any:
        """The one record of this list whose fields equal ``conds``; Missing when none or several do."""
        step = ("where", tuple(sorted(conds.items())))
        if self._e.schema_mode:
            origin, args = self._inner()
            record = _strip(args[-1]) if origin is list else None
            fields = record.model_fields if isinstance(record, type) and issubclass(record, BaseModel) else {}
            if unknown := [k for k in conds if k not in fields]:
                raise SchemaError(f"{self._path}.where({', '.join(unknown)}=...): its records declare "
                                  f"{', '.join(fields) or 'no fields'}")
            return self._child(step, annotation=record)
        rows = self._value if isinstance(self._value, list) else []
        hits = [r for r in rows if isinstance(r, BaseModel) and all(getattr(r, k, object()) == v
                                                                     for k, v in conds.items())]
        if len(hits) != 1:
            raise Missing(f"{len(hits)} records of {self._path} match {conds}")
        return self._child(step, hits[0])

    def keys(self) -> list:
        if self._e.schema_mode:
            key_type = _strip(self._inner()[1][0])
            return list(typing.get_args(key_type)) if typing.get_origin(key_type) is typing.Literal else ["x"]
        if not isinstance(self._value, dict):
            raise SchemaError(f"{self._path} is not a dict")
        return list(self._value)

    def __iter__(self):
        n = 1 if self._e.schema_mode else len(self._value)
        return (self[i] for i in range(n))

    def __len__(self) -> int:
        return 1 if self._e.schema_mode else len(self._value)


Say = Callable[[Said], str]  # a sentence's Said (template, macro, fields) -> the sentence


class Evidence:
    """The chapters' results, handing out numbers and recording where each came from. ``say`` words a part's
    evidence (:class:`~rmbook.analysis.claims.rules.Said`): the page passes the report layer's renderer
    (:func:`rmbook.report.brief.words`), since this layer may not import it."""

    def __init__(self, results: dict[str, BaseModel | None], reasons: dict[str, str] | None = None,
                 schema_mode: bool = False, say: Say | None = None):
        self.results = results
        self.reasons = reasons or {}
        self.schema_mode = schema_mode
        self.say = say
        self.refs: list[Ref] = []
        self.derived: list[Ref] = []

    @classmethod
    def schema(cls, result_types: dict[str, type[BaseModel]], say: Say | None = None) -> Evidence:
        """Evidence over the results types themselves: reads are checked against the types and get stand-ins (the
        sentences are rendered from them only when ``say`` is given)."""
        return cls(dict(result_types), schema_mode=True, say=say)

    def words(self, said: Said) -> str:
        """The sentence ``said`` states, in words."""
        if self.say is None:
            if self.schema_mode:
                return ""
            raise RmlibError("Evidence needs say= to word the parts' evidence (the page passes "
                             "rmbook.report.brief.words)")
        return self.say(said)

    def of(self, chapter: str) -> Node:
        """The root of chapter ``chapter``'s results; Missing (with the reason) when it has not written any."""
        data = self.results.get(chapter)
        if data is None:
            raise Missing(self.reasons.get(chapter, f"chapter {chapter!r} has not written results"))
        if self.schema_mode:
            return Node(self, chapter, (), annotation=data)
        return Node(self, chapter, (), value=data)

    def derive(self, what: str, value: Any) -> Any:
        """A number the claim computes from numbers it read (a count over panels, the floor of a test after FDR, a
        range over runs): recorded with what it is, so the page can show it and a test can tell it from a typed-in
        number. Returns ``value``."""
        self.derived.append(Ref("derived", what, value))
        return value

    def take(self) -> list[Ref]:
        refs, self.refs = self.refs, []
        return refs

    def take_derived(self) -> list[Ref]:
        derived, self.derived = self.derived, []
        return derived


def evaluate_part(name: str, e: Evidence, fn: Callable[[], tuple], context: bool = False,
                  one_sided: str = "", support: str = "reproduction") -> Part:
    """Run one part's evidence function ``fn`` and attach the numbers it read; a missing number makes the part
    untestable with the reason, rather than failing the page (a :class:`SchemaError` is a bug and is raised).
    ``fn`` returns (outcome, said) or (outcome, said, extras): ``said`` the evidence sentence's
    :class:`~rmbook.analysis.claims.rules.Said` (or a fixed reason, for an untestable part), extras holding the part's
    ``floor`` (smallest attainable p) and/or ``note`` (a qualifier, as a :class:`~rmbook.analysis.claims.rules.Said`
    that the claims template words, or None). ``one_sided``: why the part can hold but never fail, where it
    cannot (:attr:`~rmbook.analysis.claims.rules.Part.one_sided`); ``support``: 'reproduction' (the authors' released
    data) or 'replication' (new models)."""
    try:
        with recording_tests() as tests:
            outcome, said, *rest = fn()
    except Missing as err:
        e.take(), e.take_derived()
        return Part(name, "untestable", f"not available here: {err}", [], context, one_sided=one_sided,
                    support=support)
    extras = rest[0] if rest else {}
    text = e.words(said) if isinstance(said, Said) else said
    note = extras.get("note")
    note = e.words(note) if isinstance(note, Said) else (note or "")
    return Part(name, outcome, text, e.take(), context, floor=extras.get("floor"), note=note,
                derived=e.take_derived(), said=said if isinstance(said, Said) else None, one_sided=one_sided,
                tests=tests, support=support)


def untestable(name: str, reason: str) -> Part:
    """A part that needs what this book does not have (the RMs' weights on a GPU, a model hub), with the reason."""
    return Part(name, "untestable", reason)


def fdr_floor(e: Evidence, summary, k: int = 1) -> tuple[float, dict]:
    """The smallest FDR-adjusted p a panel can reach with this many models and panels (``k`` panels at the floor),
    and the fields of the clause that says so (the shared ``floor`` macro); ``summary`` is a family summary's node
    (e.g. ``e.of("big_two").results["published"]``: the Big Two and the MFD2 claims read it alike)."""
    raw, m = summary.min_attainable_p, summary.n_panels
    per_family = summary.models_per_family
    n = [per_family[f] for f in per_family.keys()]
    k = min(k, m)  # with fewer panels than k, all of them at the floor
    # no panels: no test, and nothing below 1 is attainable
    floor = e.derive(f"smallest FDR-adjusted p with {k} panel(s) at the floor", bh_floor(raw, m, k) if m else 1.0)
    return floor, {"n_models": n, "raw": raw, "n_panels": m, "floor": floor, "k": k}
