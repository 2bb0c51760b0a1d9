"""Patching one object's method in a test: an instance with __slots__ (tests/test_slots.py) takes no method of its
own, so the method is patched on its class, and only calls on that object go through the patch."""

from __future__ import annotations

from typing import Any, Callable


def on_instance(monkeypatch, obj: object, name: str, call: Callable[..., Any]) -> None:
    """`obj.name(*args)` becomes `call(original, obj, *args)`; the method of every other instance stays as it was."""
    cls = type(obj)
    original = getattr(cls, name)

    def patched(self, *args, **kwargs):
        if self is obj:
            return call(original, self, *args, **kwargs)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cls, name, patched)
