"""atheris harness of the YAML loader and the schema check: any bytes give documents (each then
checked against rule.json) or a located MPR2xx error. Run:
``python3 fuzz/fuzz_yaml.py -max_total_time=300 fuzz/corpus/yaml tests/hostile/yaml``."""
from __future__ import annotations

from _harness import instrumented, run

with instrumented():
    from interpreter.documents.loader import load_text
    from interpreter.documents.schema import validate_document
    from rules_dsl.errors import MprError


def test_one_input(data: bytes) -> None:
    try:
        documents = load_text(data, "fuzz.yaml")
    except MprError as error:
        loc = error.loc
        if not error.code.startswith("MPR2") or loc is None or not (loc.line and loc.column):
            raise AssertionError(f"{error.code} without a position: {error}") from None
        return
    for document in documents:
        for finding in validate_document(document, lang="en"):
            if not finding.code.startswith("MPR") or finding.code == "MPR000":
                raise AssertionError(f"bad finding {finding}")


if __name__ == "__main__":
    run(test_one_input)
