"""Naming a holder in a campaign command: by its id (``rin``) or by its name (``リン``, compared
after Unicode NFKC normalisation); a name that several holders share is refused, listing their ids."""
from __future__ import annotations

import unicodedata

from rules_dsl.errors import Location, MprError, define

from interpreter.campaign.state import Holder

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Sequence

AMBIGUOUS_NAME = define(
    "MPR683", "{name!r} is the name of {count} holders: give one of their ids ({ids})",
    "{name!r} という名前の保持者が {count} 人（個）います。ID で指定してください（{ids}）")


def _folded(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip().casefold()


def resolve(given: str, holders: Sequence[Holder], where: str) -> str | None:
    """The id of the holder ``given`` names (its id first, else its name); ``None`` if none."""
    if any(h.id == given for h in holders):
        return given
    named = [h.id for h in holders if isinstance(h.data.get("name"), str)
             and _folded(h.data["name"]) == _folded(given)]
    if len(named) > 1:
        raise MprError(AMBIGUOUS_NAME, Location(path=where), name=given, count=len(named),
                       ids=", ".join(named))
    if not named:
        folded = [h.id for h in holders if _folded(h.id) == _folded(given)]
        return folded[0] if len(folded) == 1 else None
    return named[0]
