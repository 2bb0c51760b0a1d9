"""How a configuration key is declared (agent/settings.py, agent/kube/settings.py): its doc and bounds ride on its
type, `Annotated[float, num("what it means", gt=0)]`; `convert` checks the type and the bounds, and the docs render
them. A package of its own so that every block's declaration (agent/kube/settings.py, ...) imports it downward.

`convert(value, kind)` walks the declared type (str, int, float, bool, `X | None`, Literal, list[X], tuple[X, ...],
tuple[X, Y], dict[K, V], nested dataclasses, Annotated with `Meta`) and returns the value as that type, or raises
`Invalid` (where, what was expected, the value); `each` reads a saved section's entries alone (the agent's state).
The few lax readings it allows are those of the environment and of YAML written by hand (msgspec's strict=False,
which this replaced: no library is loaded for the agent's one conversion at start-up, issue 24):

- a number written as text, as JSON writes numbers ("5", "-0.5", "1e3"; "nan", "inf", "infinity" as floats, which
  bounds then refuse, and a float declared without bounds too: a saved NaN or Infinity, which Python's json reads, is
  no number), for an int or a float: GPU_NPD_<KEY>=5;
- a float with no fraction (up to 2**53) for an int: `max_problems: 4096.0`;
- "true", "false", "1", "0" (any case) and 1, 0 for a bool: GPU_NPD_<BLOCK>__ENABLED=1 as GPU_NPD_<KEY>=1 works;
- "null" (any case) for `X | None`.
"""

from __future__ import annotations

import logging
import math
import re
import types
from collections.abc import Iterator
from dataclasses import MISSING, dataclass, fields, is_dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

log = logging.getLogger("gpu_npd")
SAID = 3  # faults of dropped saved entries named in the one warning (dropped), the rest counted
LIMIT = 10**9  # no number means anything past this (31 years of seconds, a petabyte in MB): a typo or an attack


@dataclass(frozen=True)
class Meta:
    """A key's doc and bounds (a number within gt / ge / lt / le, a string in which `pattern` is found)."""
    description: str | None = None
    gt: float | None = None
    ge: float | None = None
    lt: float | None = None
    le: float | None = None
    pattern: str | None = None


def doc(text: str, **bounds: Any) -> Meta:
    """A key's doc (one or two sentences) and any bounds: gt, ge, lt, le, pattern."""
    return Meta(description=text, **bounds)


def num(text: str, **bounds: Any) -> Meta:
    """A number's doc and bounds: every number lies within +-LIMIT as well."""
    bounds.setdefault("le", LIMIT)
    if "gt" not in bounds:
        bounds.setdefault("ge", -LIMIT)
    return doc(text, **bounds)


NOTHING = object()  # Invalid.got where the message says it all (a key of a mapping)


class Invalid(ValueError):
    """A value that is not of its declared type: `path` ("kubernetes.qps", "kubernetes.taints[0]"; "" for the
    top), `what` ("expected a number > 0"), `got` (the value as given, or NOTHING)."""

    def __init__(self, path: str, what: str, got: Any = NOTHING) -> None:
        super().__init__(f"{path or 'configuration'}: {what}")
        self.path, self.what, self.got = path, what, got


def _noun(kind: Any) -> str:
    """A type as the error says it ("a number"); a value's type for a value."""
    for t, noun in ((bool, "true or false"), (int, "an integer"), (float, "a number"), (str, "a string"),
                    (type(None), "null")):
        if kind is t:
            return noun
    if kind in (list, tuple, set, frozenset) or get_origin(kind) in (list, tuple):
        return "a list"
    if kind is dict or get_origin(kind) is dict or is_dataclass(kind):
        return "a mapping"
    if get_origin(kind) in (Union, types.UnionType):
        return " | ".join(_noun(t) for t in get_args(kind))
    return getattr(kind, "__name__", str(kind))


# a number as JSON writes it (msgspec's reading of a number in text); nan / inf / infinity for floats
_NUMBER = re.compile(r"(?P<whole>-?(?:0|[1-9][0-9]*))(?P<part>\.[0-9]+)?(?P<exp>[eE][-+]?[0-9]+)?"
                     r"|-?(?:nan|inf|infinity)", re.I)


def _shown(bound: float, kind: type) -> str:
    bound = kind(bound)
    return str(int(bound)) if isinstance(bound, float) and bound.is_integer() and abs(bound) < 1e16 else repr(bound)


def _number(value: Any, kind: type, path: str, meta: Meta | None) -> Any:
    """An int or a float (`kind`) from a number, or from one written as text; then its bounds."""
    given = value
    if isinstance(value, str) and (m := _NUMBER.fullmatch(value)):
        if kind is int and m["whole"] and not m["part"] and not m["exp"]:
            try:
                value = int(value)
            except ValueError:  # past 4300 digits (sys.get_int_max_str_digits): int() refuses to read it
                raise Invalid(path, "number out of range", given) from None
        else:
            value = float(value)
            if m["whole"] and value in (float("inf"), float("-inf")):  # 1e400: beyond a float
                raise Invalid(path, "number out of range", given)
    if kind is int and type(value) is float and value.is_integer() and abs(value) <= 2**53:
        value = int(value)
    if type(value) is not kind and not (kind is float and type(value) is int):
        raise Invalid(path, f"expected {_noun(kind)}", given)
    if kind is float:
        try:
            value = float(value)
        except OverflowError:
            raise Invalid(path, "number out of range", given) from None
    if meta is not None:
        for name, op in (("gt", ">"), ("ge", ">="), ("lt", "<"), ("le", "<=")):
            bound = getattr(meta, name)
            if kind is int and bound is not None and op in (">", "<"):  # said as msgspec said it: > 0 is >= 1
                bound, op = (bound + 1, ">=") if op == ">" else (bound - 1, "<=")
            if bound is not None and not _holds(value, op, bound):
                raise Invalid(path, f"expected {_noun(kind)} {op} {_shown(bound, kind)}", given)
    if kind is float and not math.isfinite(value):  # (a key's bounds said theirs above; a saved number has none)
        raise Invalid(path, "expected a finite number", given)
    return value


def _holds(value: float, op: str, bound: float) -> bool:
    return value > bound if op == ">" else value >= bound if op == ">=" else value < bound if op == "<" \
        else value <= bound


def _key(key: Any, path: str, text_only: bool) -> None:
    if not isinstance(key, str):
        said = "expected a string" if text_only else f"expected a string, got {_noun(type(key))}"
        raise Invalid(path, f"a key is not usable: {said}")


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def convert(value: Any, kind: Any, path: str = "") -> Any:
    """`value` (plain data: YAML, the environment's text) as the declared type `kind`; raises Invalid."""
    meta, kind = meta_of(kind), bare(kind)
    origin, args = get_origin(kind), get_args(kind)
    if kind is Any:
        return value
    if origin in (Union, types.UnionType):
        (inner,) = [t for t in args if t is not type(None)]  # X | None: the one union declared
        if value is None or isinstance(value, str) and value.lower() == "null":
            return None
        try:
            return convert(value, inner, path)
        except Invalid as exc:
            if exc.path != path or exc.what != f"expected {_noun(bare(inner))}":
                raise
            raise Invalid(path, f"expected {_noun(kind)}", value) from None
    if origin is Literal:
        if any(type(value) is type(a) and value == a for a in args):
            return value
        raise Invalid(path, f"expected one of {', '.join(map(str, args))}", value)
    if kind is bool:
        if type(value) is bool:
            return value
        word = value.lower() if isinstance(value, str) else value if type(value) is int else None
        if word in ("true", "1", 1, "false", "0", 0):
            return word in ("true", "1", 1)
        raise Invalid(path, "expected true or false", value)
    if kind in (int, float):
        return _number(value, kind, path, meta)
    if kind is str:
        if not isinstance(value, str):
            raise Invalid(path, "expected a string", value)
        if meta is not None and meta.pattern is not None and not re.search(meta.pattern, value):
            raise Invalid(path, f"expected a string matching regex {meta.pattern!r}", value)
        return value
    if origin in (list, tuple):
        if not isinstance(value, (list, tuple, set, frozenset)):
            raise Invalid(path, "expected a list", value)
        if origin is tuple and args[-1] is not Ellipsis:  # tuple[X, Y]: so many items, each of its type
            if len(value) != len(args):
                raise Invalid(path, f"expected a list of {len(args)}", value)
            return tuple(convert(v, t, f"{path}[{i}]") for i, (v, t) in enumerate(zip(value, args)))
        items = [convert(v, args[0], f"{path}[{i}]") for i, v in enumerate(value)]
        return tuple(items) if origin is tuple else items
    if kind is dict or origin is dict:
        if not isinstance(value, dict):
            raise Invalid(path, "expected a mapping", value)
        if not args:
            return dict(value)
        out = {}
        for k, v in value.items():
            if args[0] is str:
                _key(k, path, False)
            out[k] = convert(v, args[1], f"{path}.{k}" if isinstance(k, str) and _plain_name(k) else f"{path}[...]")
        return out
    if is_dataclass(kind):
        if isinstance(value, kind):
            return value
        if not isinstance(value, dict):
            raise Invalid(path, "expected a mapping", value)
        declared, given = hints(kind), {}
        for k, v in value.items():
            _key(k, path, True)
            if k in declared:
                given[k] = convert(v, declared[k], _child(path, k))
        for f in fields(kind):
            if f.name not in given and f.default is MISSING and f.default_factory is MISSING:
                raise Invalid(path, f"object missing required field {f.name}", value)
        return kind(**given)
    raise TypeError(f"{path}: a declared type keyspec does not convert: {kind}")


# a number as text, as `_number` reads it and keeps it (nan and inf it refuses): the JSON Schema's pattern for it
NUMBER_TEXT = r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$"


def schema(kind: Any, closed: bool = True) -> dict[str, Any]:
    """A JSON Schema (draft 7) of what `convert` accepts as `kind`: types, bounds of numbers written as numbers,
    patterns, Literal's values; the lax readings above as the JSON types they come in (a number as text matches
    NUMBER_TEXT, its bounds left to `convert`). A dataclass's other keys are refused where `closed` (the agent's
    configuration refuses them everywhere but inside an open mapping's values). A type it has no row for raises
    TypeError: the declaration grew a shape the schema must learn."""
    meta, kind = meta_of(kind), bare(kind)
    origin, args = get_origin(kind), get_args(kind)
    out: dict[str, Any] = {"description": meta.description} if meta is not None and meta.description else {}
    if kind is Any:
        return out
    if origin in (Union, types.UnionType):
        (inner,) = [t for t in args if t is not type(None)]
        inner_schema = schema(inner, closed)
        if "enum" in inner_schema:
            inner_schema["enum"] = [*inner_schema["enum"], None]
        else:
            inner_schema["type"] = [*inner_schema["type"], "null"]  # (and "null" as text: every such type is text)
        return {**inner_schema, **out}
    if origin is Literal:
        return {**out, "enum": list(args)}
    if kind is bool:  # true, false; 1, 0; "true", "1" ... as text
        return {**out, "type": ["boolean", "integer", "string"], "minimum": 0, "maximum": 1}
    if kind in (int, float):
        out.update(type=["integer" if kind is int else "number", "string"], pattern=NUMBER_TEXT)
        for name, key in (("gt", "exclusiveMinimum"), ("ge", "minimum"), ("lt", "exclusiveMaximum"),
                          ("le", "maximum")):
            if meta is not None and getattr(meta, name) is not None:
                out[key] = getattr(meta, name)
        return out
    if kind is str:
        return {**out, "type": ["string"], **({"pattern": meta.pattern} if meta and meta.pattern else {})}
    if origin in (list, tuple) and (origin is list or args[-1] is Ellipsis):
        return {**out, "type": ["array"], "items": schema(args[0], closed)}
    if kind is dict or origin is dict:
        return {**out, "type": ["object"], **({"additionalProperties": schema(args[1], False)} if args else {})}
    if is_dataclass(kind):
        declared = hints(kind)
        required = [f.name for f in fields(kind) if f.default is MISSING and f.default_factory is MISSING]
        return {**out, "type": ["object"], "properties": {k: schema(t, closed) for k, t in declared.items()},
                **({"required": required} if required else {}), **({"additionalProperties": False} if closed else {})}
    raise TypeError(f"a declared type keyspec has no schema for: {kind}")


def each(value: Any, kind: Any, path: str, faults: list[str]) -> Iterator[tuple[Any, Any]]:
    """Each entry of a saved `list[X]` or `dict[str, X]` (`kind`) read alone as X (a restore of the agent's state):
    (index or key, value) for those that convert; the fault of each that does not, or of a `value` that is not of
    `kind`'s container, is added to `faults` and the entry dropped, the rest read."""
    container, item = get_origin(kind), get_args(kind)[-1]
    if not isinstance(value, container):
        faults.append(str(Invalid(path, f"expected {_noun(kind)}", value)))
        return
    for key, raw in value.items() if container is dict else enumerate(value):
        at = f"{path}[{key}]" if container is list else _child(path, key) if _plain_name(str(key)) \
            else f"{path}[{str(key)[:60]!r}]"
        try:
            if container is dict:
                _key(key, at, False)
            converted = convert(raw, item, at)
        except Invalid as exc:
            faults.append(str(exc))
            continue
        yield key, converted


def dropped(where: str, faults: list[str]) -> None:
    """One warning for the saved entries that `each` dropped from `where` (a state file), however many: how many,
    the faults of the first few (which entry, what was wrong)."""
    if faults:
        log.warning("%s: %d saved entries cannot be restored, dropped, the rest restored (%s%s)", where, len(faults),
                    "; ".join(faults[:SAID]), f"; and {len(faults) - SAID} more" if len(faults) > SAID else "")


def _plain_name(key: str) -> bool:
    """A mapping's key that reads well in a path (kubernetes.qps): not one with dots, brackets or spaces."""
    return key.replace("_", "").replace("-", "").isalnum()


_HINTS: dict[type, dict[str, Any]] = {}


def hints(cls: type) -> dict[str, Any]:
    """A declared block's fields and their (Annotated) types; do not change the dict returned."""
    if cls not in _HINTS:
        _HINTS[cls] = get_type_hints(cls, include_extras=True)
    return _HINTS[cls]


def bare(hint: Any) -> Any:
    """A declared type without its Annotated doc and bounds."""
    return get_args(hint)[0] if get_origin(hint) is Annotated else hint


def meta_of(hint: Any) -> Meta | None:
    """A declared type's doc and bounds (None: a type without them)."""
    return next((m for m in get_args(hint)[1:] if isinstance(m, Meta)), None) \
        if get_origin(hint) is Annotated else None
