#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Validate Kubernetes manifests offline against the API models that
Debian's python3-kubernetes ships: every field must exist in the model (a
typo is an error, not silently ignored as by the API server's lenient
decoders of old), scalar types must match, required fields must be there.

Usage: validate.py FILE.yaml...   exit 0 valid, 1 invalid, 2 cannot run."""
import re
import sys

try:
    import yaml
    from kubernetes import client
except ImportError as e:  # the caller turns this into a skip
    print(f"validate.py: {e}", file=sys.stderr)
    sys.exit(2)

KINDS = {  # (apiVersion, kind) -> model
    ("v1", "Namespace"): "V1Namespace",
    ("v1", "ConfigMap"): "V1ConfigMap",
    ("v1", "Service"): "V1Service",
    ("v1", "ServiceAccount"): "V1ServiceAccount",
    ("apps/v1", "DaemonSet"): "V1DaemonSet",
}
SCALARS = {"str": str, "int": int, "bool": bool, "float": (int, float)}
# Fields newer than the models Debian ships (python3-kubernetes 22.6: the
# 1.22 API), with the release that added them: model -> field -> its spec
# (json name -> (type, required, allowed values or None)).
APPARMOR = {"type": ("str", True, ("Unconfined", "RuntimeDefault", "Localhost")),
            "localhostProfile": ("str", False, None)}
NEWER = {
    "V1SecurityContext": {"appArmorProfile": ("1.30", APPARMOR)},
    "V1PodSecurityContext": {"appArmorProfile": ("1.30", APPARMOR)},
}


def check_newer(value, spec, path, errors):
    if not isinstance(value, dict):
        errors.append(f"{path}: expected an object")
        return
    for k, v in value.items():
        if k not in spec:
            errors.append(f"{path}.{k}: no such field")
            continue
        typ, _, allowed = spec[k]
        check(v, typ, f"{path}.{k}", errors)
        if allowed and v not in allowed:
            errors.append(f"{path}.{k}: {v!r} is not one of {', '.join(allowed)}")
    for k, (_, required, _) in spec.items():
        if required and k not in value:
            errors.append(f"{path}.{k}: required")


def check(value, typ, path, errors):
    if value is None:
        return
    if typ in ("object", "datetime"):  # IntOrString, Quantity, raw objects
        return
    if typ in SCALARS:
        ok = isinstance(value, SCALARS[typ]) and not (typ == "int" and isinstance(value, bool))
        if not ok:
            errors.append(f"{path}: expected {typ}, got {type(value).__name__} {value!r}")
        return
    m = re.fullmatch(r"list\[(.+)\]", typ)
    if m:
        if not isinstance(value, list):
            errors.append(f"{path}: expected a list")
            return
        for i, v in enumerate(value):
            check(v, m.group(1), f"{path}[{i}]", errors)
        return
    m = re.fullmatch(r"dict\(str, (.+)\)", typ)
    if m:
        if not isinstance(value, dict):
            errors.append(f"{path}: expected a map")
            return
        for k, v in value.items():
            check(v, m.group(1), f"{path}.{k}", errors)
        return
    model = getattr(client, typ, None)
    if model is None:
        errors.append(f"{path}: unknown model {typ}")
        return
    if not isinstance(value, dict):
        errors.append(f"{path}: expected an object ({typ})")
        return
    by_json = {j: p for p, j in model.attribute_map.items()}
    newer = NEWER.get(typ, {})
    for k, v in value.items():
        if k not in by_json and k in newer:
            check_newer(v, newer[k][1], f"{path}.{k}", errors)
            continue
        if k not in by_json:
            errors.append(f"{path}.{k}: no such field in {typ}")
            continue
        check(v, model.openapi_types[by_json[k]], f"{path}.{k}", errors)


def without_newer(value):
    """VALUE less the fields of NEWER (the old models' deserialiser would
    drop them anyway, or fail on them)."""
    names = {k for fields in NEWER.values() for k in fields}
    if isinstance(value, dict):
        return {k: without_newer(v) for k, v in value.items() if k not in names}
    if isinstance(value, list):
        return [without_newer(v) for v in value]
    return value


def validate(doc, where):
    errors = []
    key = (doc.get("apiVersion"), doc.get("kind"))
    model = KINDS.get(key)
    if not model:
        return [f"{where}: unsupported apiVersion/kind {key}"]
    check(doc, model, f"{where}:{key[1]}", errors)
    if not errors:
        try:  # the models' own required-field checks (newer fields checked above)
            client.ApiClient()._ApiClient__deserialize(without_newer(doc), model)
        except (ValueError, TypeError) as e:
            errors.append(f"{where}:{key[1]}: {e}")
    return errors


def main(files):
    errors, n = [], 0
    for f in files:
        with open(f) as fh:
            for i, doc in enumerate(yaml.safe_load_all(fh)):
                if doc is None:
                    continue
                n += 1
                errors += validate(doc, f"{f}#{i}")
    for e in errors:
        print(e)
    print(f"validate.py: {n} objects, {len(errors)} errors")
    return 1 if errors or not n else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]) if len(sys.argv) > 1 else 2)
