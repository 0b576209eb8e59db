"""The budgets checked before the work is done (issue 25 item 1): the elements the lists of one
evaluation hold, the bytes a command prints, a member count given as a number, and the
quick_check of a campaign file; each at its bound (accepted) and past it
(refused with its code, quickly)."""
from __future__ import annotations

import json

from pathlib import Path

import pytest

from campaign_support import make_campaign  # noqa: E402
from interpreter.campaign import files  # noqa: E402
from interpreter.cli import main  # noqa: E402
from interpreter.cli.output import output_estimate, refuse_huge_output  # noqa: E402
from interpreter.reports.limits import MAX_OUTPUT_BYTES  # noqa: E402
from interpreter.solvers.limits import MAX_MEMBERS  # noqa: E402
from rules_dsl import compile_expression  # noqa: E402
from rules_dsl.errors import MprError  # noqa: E402
from rules_dsl.limits import MAX_ELEMENTS_HELD, MAX_LIST_LENGTH  # noqa: E402



def refused(call, *args, **kwargs) -> MprError:
    with pytest.raises(MprError) as caught:
        call(*args, **kwargs)
    return caught.value


# `n` is a name, so nothing is folded at compile time; the literal texts are folded, and the
# closures that fold them meet the same bound.
@pytest.mark.parametrize("text, env", [
    ("[range({size}) for a in range(n)]", {}),
    ("[range({size}) for a in range({rounds})]", None),
])
def test_elements_held_at_and_past_the_bound(text: str, env) -> None:
    size = MAX_LIST_LENGTH
    rounds = MAX_ELEMENTS_HELD // size
    for n, accepted in ((rounds, True), (rounds + 1, False)):
        source = text.format(size=size, rounds=n)
        if env is None:
            if accepted:
                assert len(compile_expression(source).evaluate({})) == n
            else:
                assert refused(lambda text=source: compile_expression(text).evaluate({})).code == "MPR161"
            continue
        expression = compile_expression(source, names={"n"})
        if accepted:
            assert len(expression.evaluate({"n": n})) == n
        else:
            assert refused(expression.evaluate, {"n": n}).code == "MPR161"


def test_elements_held_are_counted_over_the_whole_evaluation() -> None:
    """Lists inside lists: what every comprehension of one evaluation holds is counted together."""
    expression = compile_expression("[[range(10000) for b in range(m)] for a in range(n)]", names={"n", "m"})
    assert len(expression.evaluate({"n": 1, "m": 99})) == 1  # 990,000 + 99 elements held
    assert refused(expression.evaluate, {"n": 2, "m": 99}).code == "MPR161"


def test_output_at_and_past_the_bound(capsys, monkeypatch) -> None:
    value = list(range(1000))
    estimate = output_estimate(value, 10**9)
    monkeypatch.setattr("interpreter.cli.output.MAX_OUTPUT_BYTES", estimate)
    refuse_huge_output(value)
    monkeypatch.setattr("interpreter.cli.output.MAX_OUTPUT_BYTES", estimate - 1)
    assert refused(refuse_huge_output, value).code == "MPR071"
    monkeypatch.undo()
    # the real bound: the inner list is made once (it reads no name) and held 100 times, each
    # time holding one list of 1,000 99 times: printing it prints 9,900,000 numbers
    for fmt in ("text", "json"):
        status = main(["eval", "[[range(1000) for b in range(99)] for a in range(x)]", "--var", "x=100",
                       "--format", fmt])
        out, err = capsys.readouterr()
        assert status == 1 and "MPR071" in err, err
        assert out == "" if fmt == "text" else json.loads(out)["error"]["code"] == "MPR071"  # the refusal only
    assert output_estimate([[list(range(1000))] * 99] * 100, MAX_OUTPUT_BYTES) > MAX_OUTPUT_BYTES
    assert main(["eval", "range(10000)"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("count, code", [(MAX_MEMBERS, None), (MAX_MEMBERS + 1, "MPR526"),
                                         (10_000_000, "MPR526"), (10**60, "MPR526")])
def test_a_member_count_is_refused_before_it_is_expanded(count: int, code, tmp_path, capsys) -> None:
    source = tmp_path / "in.yaml"
    source.write_text(f"{{table: city, safety: 0, residents: {count}}}\n", encoding="utf-8")
    status = main(["run", "cohabitation.leisure", "--input", str(source), "--seed", "1", "--format", "json"])
    out, err = capsys.readouterr()
    if code is None:
        assert status == 0, err
    else:
        assert status == 1 and code in err, err


@pytest.mark.parametrize("room, checked", [(0, True), (-1, False)])
def test_quick_check_at_and_past_the_bound(room: int, checked: bool, tmp_path, monkeypatch, capsys) -> None:
    path = make_campaign(tmp_path)
    monkeypatch.setattr(files, "QUICK_CHECK_MAX_BYTES", Path(path).stat().st_size + room)
    statements: list[str] = []
    real = files.connect_readonly

    def traced(where: str):
        conn = real(where)
        conn.set_trace_callback(statements.append)
        return conn

    monkeypatch.setattr(files, "connect_readonly", traced)
    assert main(["campaign", "show", path]) == 0
    capsys.readouterr()
    assert ("PRAGMA quick_check" in statements) == checked, statements
