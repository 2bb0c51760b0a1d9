"""A ValidatingAdmissionPolicy evaluated by cel-python as the API server would: the request matched by the
policy's matchConditions, its variables computed in order, then every validation; a CEL error denies
(failurePolicy: Fail). One CEL environment and one compiled program per expression for every case (compiling
is slow)."""

from __future__ import annotations

_CEL = None
_PROGRAMS: dict = {}


def admitted(vap: dict, user: str, node: str | None, sub: str, name: str, old: dict, new: dict) -> bool:
    """Not matched (another user) or every validation True. `node`: the token's node-name claim (None: none)."""
    import celpy  # noqa: PLC0415

    global _CEL
    if _CEL is None:
        _CEL = celpy.Environment()
    env = _CEL
    extra = {"authentication.kubernetes.io/node-name": [node]} if node else {}
    act = {"request": celpy.json_to_cel({"userInfo": {"username": user, "extra": extra}, "subResource": sub,
                                         "name": name}),
           "object": celpy.json_to_cel(new), "oldObject": celpy.json_to_cel(old)}

    def ev(expr: str, variables: dict):
        try:
            if expr not in _PROGRAMS:
                _PROGRAMS[expr] = env.program(env.compile(expr))
            return _PROGRAMS[expr].evaluate({**act, "variables": celpy.celtypes.MapType(variables)})
        except Exception as exc:  # noqa: BLE001 - a CEL error
            return exc

    if not all(ev(m["expression"], {}) == celpy.celtypes.BoolType(True) for m in vap["spec"]["matchConditions"]):
        return True
    variables: dict = {}
    for v in vap["spec"].get("variables") or []:
        variables[celpy.celtypes.StringType(v["name"])] = ev(v["expression"], variables)
    return all(ev(v["expression"], variables) == celpy.celtypes.BoolType(True) for v in vap["spec"]["validations"])
