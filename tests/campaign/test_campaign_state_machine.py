"""Random sequences of campaign commands (hypothesis state machine): the cards always add up to the
deck, circulation never changes how many cards a holder has, and undo restores the exact state."""
from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from campaign_support import dump, make_campaign
from interpreter.campaign import commands
from interpreter.campaign.store import Store
from rules_dsl.errors import MprError

LONG_SLEEP = {"overrides": {"rest.long": {"params": {"effects": [{"effect": "sleep", "hours": 8}]}}}}
COMPOSITION = Counter([f"{s}{r}" for s in "SHDC" for r in ["A", *map(str, range(2, 11)), "J", "Q", "K"]]
                      + ["JK1", "JK2"])
HOLDERS = ["alice", "bob", "battery"]
seeds = st.integers(0, 2**16)


class Campaign(RuleBasedStateMachine):
    """A model of the campaign: the stack of states before each command not yet undone."""

    @initialize(seed=seeds)
    def start(self, seed: int) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="mprules-sm-"))
        self.path = make_campaign(self.folder, seed=seed, manifest=LONG_SLEEP)
        self.counts = self.holder_counts()
        self.history: list[dict] = []

    def teardown(self) -> None:
        shutil.rmtree(getattr(self, "folder", ""), ignore_errors=True)

    def holder_counts(self) -> dict[str, int]:
        return {h: len(c) for h, c in dump(self.path)["cards"]["holders"].items()}

    def command(self, name: str, *args, **kwargs) -> None:
        before = dump(self.path)
        with Store.open(self.path) as store:
            try:
                getattr(commands, name)(store, *args, **kwargs)
            except MprError:
                assert dump(self.path) == before  # a refused command changes nothing
                return
        self.history.append(before)

    @rule(pc=st.sampled_from(["alice", "bob"]), hours=st.sampled_from([0, 0.5, 1, 8]), seed=seeds)
    def sleep(self, pc: str, hours: float, seed: int) -> None:
        self.command("sleep", pc, hours, seed=seed)

    @rule(seed=seeds)
    def dawn(self, seed: int) -> None:
        self.command("dawn", seed=seed)

    @rule(holder=st.sampled_from(HOLDERS), count=st.integers(0, 4), seed=seeds)
    def circulate_some(self, holder: str, count: int, seed: int) -> None:
        self.command("circulate", holder, count=count, seed=seed)

    @rule(holder=st.sampled_from(HOLDERS), seed=seeds)
    def circulate_all(self, holder: str, seed: int) -> None:
        self.command("circulate", holder, take_all=True, seed=seed)

    @rule(tier=st.sampled_from(["short", "medium", "long"]), seed=seeds)
    def rest(self, tier: str, seed: int) -> None:
        self.command("rest", tier, seed=seed)

    @rule(minutes=st.integers(0, 3000), seed=seeds)
    def advance(self, minutes: int, seed: int) -> None:
        self.command("advance", minutes, seed=seed)

    @rule(tier=st.sampled_from(["instant", "tense"]), pc=st.sampled_from(["alice", "bob"]))
    def brief(self, tier: str, pc: str) -> None:
        self.command("brief", tier, pc, "anything")

    @precondition(lambda self: self.history)
    @rule()
    def undo(self) -> None:
        with Store.open(self.path) as store:
            commands.undo(store)
        assert dump(self.path) == self.history.pop()

    @invariant()
    def cards_add_up_and_counts_hold(self) -> None:
        cards = dump(self.path)["cards"]
        total = Counter(cards["deck"]) + Counter(cards["discard"])
        for held in cards["holders"].values():
            total.update(held)
        assert total == COMPOSITION
        assert self.holder_counts() == self.counts


Campaign.TestCase.settings = settings(max_examples=12, stateful_step_count=10, deadline=None)
TestCampaign = Campaign.TestCase
