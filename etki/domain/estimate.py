"""A reviewer's effort estimate of a case (issue 35 item 2): days and an optional price
entered by a person (``etki estimate``, the desk), beside the engine's frozen effort
range, which it never changes. Stored as a ``case_events`` row of kind ``estimate``
whose text is :meth:`ReviewerEstimate.to_text` (JSON); the newest one is the case's
estimate in force, the earlier ones stay in its history.

Input rules (:func:`parse_estimate`): days a decimal number above 0 and at most
:data:`ESTIMATE_MAX_DAYS`, with at most two decimals (``3``, ``2.5``, ``0,75`` — a
decimal comma as Turkish and German write it is read as a point); a price optional,
a decimal number above 0 and at most :data:`PRICE_MAX` with at most two decimals, given
with the ISO 4217 code of a currency in use (:func:`is_iso4217`: ``--price 12500
--currency EUR``; a currency without a price is refused); a reason required (at most
:data:`ESTIMATE_REASON_MAX_CHARS` characters). A negative or zero figure is refused as
"must be positive". A price may be written as Turkish and German write it
(:func:`_tr_de_amount`): thousands grouped by ``.`` or a space, decimals after a comma
(``86.500,00``, ``86 500,00``, ``1.250.000``, ``86 500``) — a PMO trial of issue 35 typed
``86.500,00 TRY``. Only unambiguous figures are read: ``1.500`` and ``1,500`` (1500 in
Turkish and German, 1.5 in English) and English grouping (``12,500.50``) are refused
with the way to write them (``1500``, ``1.500,00`` or ``1500.00``), never guessed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import cache
from typing import Any

from etki.errors import InputError

ESTIMATE_MAX_DAYS = Decimal(2000)
"""The largest estimate in person-days (about eight person-years): a larger figure is a
typo (a price typed as days), never a change request's effort."""

PRICE_MAX = Decimal(1_000_000_000)
"""The largest price accepted (in the given currency)."""

ESTIMATE_REASON_MAX_CHARS = 2000
"""The longest reason an estimate may carry."""

_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]{1,2})?")
_TR_DE = re.compile(r"[0-9]{1,3}([. \u00a0\u202f])[0-9]{3}(?:\1[0-9]{3})*(?:,([0-9]{1,2}))?")
"""Thousands grouped by one kind of ``.`` or space, optional decimals after a comma
(:func:`_tr_de_amount`)."""
_GROUPED = re.compile(r"[0-9]{1,3}(?:([.,\u00a0\u202f' ])[0-9]{3})+(?:[.,][0-9]+)?")
"""A figure with thousands separators (``12.500,50``, ``12,500.50``, ``1.250.000``,
``12 500``): refused with :func:`_plain_hint`, never guessed."""


def is_iso4217(code: str) -> bool:
    """Whether ``code`` (upper case) is the ISO 4217 code of a currency legal tender
    somewhere today: CLDR's territory currencies as Babel ships them
    (``babel.core.get_global("territory_currencies")``, the entries with no end date).
    ``XYZ`` and the withdrawn ``DEM`` are not; ``EUR``, ``TRY``, ``USD``, ``CHF`` are."""
    return code in _current_currencies()


@cache
def _current_currencies() -> frozenset[str]:
    from babel.core import get_global

    territories = get_global("territory_currencies")
    return frozenset(
        code
        for currencies in territories.values()
        for code, _start, end, tender in currencies
        if end is None and tender
    )


def _plain_hint(raw: str) -> str:
    """How to write ``raw`` (a figure with thousands separators) plainly: its digits
    with a decimal point, when the last separator is followed by one or two digits
    (``12.500,50`` -> ``12500.50``), else its digits (``1.250.000`` -> ``1250000``);
    a single separator before three digits may have been a decimal one, and the hint
    says both (``12.500`` -> ``12500 (12.5 if a decimal was meant)``)."""
    digits = re.sub(r"[^0-9.,]", "", raw)
    last = max(digits.rfind("."), digits.rfind(","))
    tail = digits[last + 1 :]
    if 0 < len(tail) <= 2:
        return re.sub(r"[^0-9]", "", digits[:last]) + "." + tail
    whole = re.sub(r"[^0-9]", "", digits)
    if last >= 0 and digits.count(digits[last]) == 1 and digits[:last].isdigit():
        meant = _plain(Decimal(f"{digits[:last]}.{tail}"))
        return f"{whole} ({meant} if a decimal was meant)"  # 12.500: which one?
    return whole


PLAIN_WORDS = "write it plainly, digits with no thousands separator and a decimal point or comma"
"""How a price refused for its grouping is to be written plainly (:func:`_decimal`)."""

TR_DE_WORDS = "as Turkish and German write it, a dot between thousands and a comma before decimals"
"""The other form a price may take (:func:`_tr_de_amount`), as the refusal names it;
its example is the refused figure itself in that form (:func:`_tr_de_form`), which the
parser takes: a trial read "without a thousands separator ... e.g. 12.500,00"."""


def _tr_de_form(plain: str) -> str:
    """A plain figure (``86500``, ``12500.5``) as Turkish and German write an amount,
    in the form :func:`_tr_de_amount` reads one way: thousands split by ``.``, two
    decimals after ``,`` (``86.500,00``, ``12.500,50``)."""
    whole, _, cents = plain.partition(".")
    groups: list[str] = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    return ".".join([whole, *groups]) + "," + (cents + "00")[:2]


def _tr_de_amount(text: str) -> str | None:
    """``text`` written as Turkish and German write an amount, as a plain figure
    (``86.500,00`` -> ``86500.00``, ``86 500,00`` -> ``86500.00``, ``1.250.000`` ->
    ``1250000``, ``86 500`` -> ``86500``), or None when it is not that form or may be
    read two ways. The rule: groups of three digits after the first one to three, all
    split by the same ``.`` or space (a no-break or narrow no-break space too), then
    optionally ``,`` and one or two decimals. One ``.`` group with no decimals
    (``1.500``) is ambiguous (12.5 in English) and gives None, as does anything with a
    ``,`` group (``1,500``, ``12,500.50``): English grouping is never read."""
    found = _TR_DE.fullmatch(text)
    if found is None:
        return None
    if found.group(1) == "." and found.group(2) is None and text.count(".") == 1:
        return None
    return re.sub(r"[^0-9,]", "", text).replace(",", ".")


def _decimal(field: str, raw: str, *, amount: bool = False) -> Decimal:
    """``raw`` (stripped; a decimal comma read as a point) as a positive
    :class:`Decimal` with at most two decimals; :class:`InputError` naming ``field``
    otherwise: "must be positive" for a negative or zero figure, for an ``amount`` (a
    price) given with thousands separators the plain way to write it, "not a number"
    for anything else."""
    text = raw.strip()
    plain = _tr_de_amount(text) if amount else None
    if plain is not None:
        text = plain
    if text[:1] in ("-", "\u2212") and _DECIMAL.fullmatch(text[1:].replace(",", ".")):
        raise InputError(f"estimate: field '{field}' is {text}: must be positive (above 0)")
    grouped = ("," in text and "." in text) or (
        _GROUPED.fullmatch(text) is not None and not _DECIMAL.fullmatch(text.replace(",", "."))
    )
    if amount and grouped:
        hint = _plain_hint(text)
        raise InputError(
            f"estimate: field '{field}' is {raw!r}: {PLAIN_WORDS}: {hint}; or {TR_DE_WORDS}: "
            f"{_tr_de_form(hint.split(' ', 1)[0])}"
        )
    text = text.replace(",", ".")
    if not _DECIMAL.fullmatch(text):
        raise InputError(
            f"estimate: field '{field}' is {raw!r}: not a number (write e.g. 3, 2.5 or "
            "0.75; at most two decimals, no unit or thousands separator)"
        )
    try:
        value = Decimal(text)
    except InvalidOperation:  # pragma: no cover - the pattern admits only decimals
        raise InputError(f"estimate: field '{field}' is {raw!r}: not a number") from None
    if value <= 0:
        raise InputError(f"estimate: field '{field}' is {raw.strip()}: must be positive (above 0)")
    return value


def _plain(value: Decimal) -> str:
    """``value`` without a trailing ``.0``/``.00``: ``12``, ``2.5``, ``0.75``."""
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


PRICE_LOCALE = "en"
"""The locale prices are shown in (:func:`price_shown`): English, the language of the
UI and of the change-request document, so ``12,500.00`` with a decimal point, not a
client's ``12.500,00``; the currency is named by its ISO 4217 code after the figure,
never a symbol (``$`` is several currencies), so a Turkish or German reader sees which
one it is."""


def price_shown(price: str | Decimal, currency: str, *, grouped: bool = True) -> str:
    """``price`` (a decimal string or number) in ``currency`` (ISO 4217) for people to
    read: grouped thousands and the currency's minor units from CLDR (Babel's
    ``format_currency`` with ``currency_digits``: two decimals for EUR, TRY, USD; none
    for JPY; three for KWD), in :data:`PRICE_LOCALE`: ``12,500.00 EUR``,
    ``1,000,000 JPY``. The stored figure is unchanged (``12500``). Not ``grouped``:
    ``12500.50 EUR``, the same figure as a price box takes it back (a thousands
    separator is refused there, :func:`parse_estimate`)."""
    from babel.numbers import format_currency

    return format_currency(
        Decimal(str(price)),
        currency,
        format=("#,##0.00" if grouped else "0.00") + " \xa4\xa4",
        locale=PRICE_LOCALE,
        currency_digits=True,
    )


@dataclass(frozen=True)
class ReviewerEstimate:
    """A reviewer's estimate of a case: ``days`` (person-days, a decimal string such as
    ``3`` or ``2.5``), ``reason`` (the reviewer's words: untrusted text), ``actor`` (who
    entered it) and ``at`` (the store's time, ISO-8601 UTC to the second); ``price`` (a
    decimal string) with ``currency`` (ISO 4217 code), both None when no price was
    given. The engine's effort range of the decision stays as it was."""

    days: str
    reason: str
    actor: str = ""
    at: str = ""
    price: str | None = None
    currency: str | None = None

    @property
    def days_value(self) -> float:
        """``days`` as a number (person-days)."""
        return float(self.days)

    def days_words(self) -> str:
        """``3 days``, ``1 day``, ``2.5 days``, ``1,250 days``: the stored decimal as
        typed (never a binary float: ``4.5``, not ``4.499999``), thousands grouped with
        a comma (the locale-neutral rule of :data:`PRICE_LOCALE`)."""
        value = Decimal(self.days)
        return f"{value:,} {'day' if value == 1 else 'days'}"

    def figures(self) -> str:
        """The days and the price for people to read: ``4.5 days, 86,500.00 TRY``
        (:meth:`days_words`, :func:`price_shown`), ``3 days`` without a price
        (``etki estimate``'s confirmation)."""
        price = self.price_shown()
        return f"{self.days_words()}{f', {price}' if price else ''}"

    def price_words(self) -> str | None:
        """``12500 EUR``, or None without a price."""
        return None if self.price is None else f"{self.price} {self.currency}"

    def price_shown(self, *, grouped: bool = True) -> str | None:
        """The price for people to read (:func:`price_shown`: ``12,500.00 EUR``; not
        ``grouped``: ``12500.00 EUR``, as a price box takes it), or None without a
        price."""
        if self.price is None or self.currency is None:
            return None
        return price_shown(self.price, self.currency, grouped=grouped)

    def in_force(self) -> str:
        """The estimate as ``etki show`` and the desk's detail pane state it:
        ``3 days, 12,500.00 EUR (reviewer's estimate by Ayşe Yılmaz at
        2027-01-10T09:30:00Z)``; the reason is not in it (untrusted text, shown
        apart by the caller)."""
        who = f" by {self.actor}" if self.actor else ""
        when = f" at {self.at}" if self.at else ""
        return f"{self.figures()} (reviewer's estimate{who}{when})"

    def shown(self) -> str:
        """The figures for people to read, the price grouped (:func:`price_shown`):
        ``3 days, 12,500.00 EUR: reason`` (the desk's toast), as :meth:`summary`, the
        history's wording."""
        return f"{self.figures()}: {self.reason}"

    def summary(self) -> str:
        """The figures in words for a history line, the price as everywhere else
        (:meth:`figures`): ``3 days, 12,500.50 EUR: reason`` (a PMO trial of issue 35
        read ``12500.5 EUR`` there)."""
        return f"{self.figures()}: {self.reason}"

    def to_text(self) -> str:
        """The JSON text stored in the ``case_events`` row (sorted keys, no actor or
        time: those are the row's columns)."""
        body: dict[str, str | None] = {"days": self.days, "reason": self.reason}
        if self.price is not None:
            body |= {"price": self.price, "currency": self.currency}
        return json.dumps(body, ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_text(cls, text: str, actor: str, at: str) -> ReviewerEstimate:
        """The estimate of a stored ``case_events`` row (:meth:`to_text`)."""
        body = json.loads(text)
        return cls(
            days=str(body["days"]),
            reason=str(body["reason"]),
            actor=actor,
            at=at,
            price=body.get("price"),
            currency=body.get("currency"),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (``etki show --json``): ``days`` a number (person-days);
        ``price`` the exact decimal amount as a string (``"12500.5"``: money is never a
        binary float) or None, in ``currency``."""
        return {
            "days": float(self.days),
            "price": self.price,
            "currency": self.currency,
            "reason": self.reason,
            "by": self.actor,
            "at": self.at,
        }


def parse_estimate(
    days: str, reason: str, price: str | None = None, currency: str | None = None
) -> ReviewerEstimate:
    """The validated :class:`ReviewerEstimate` (no actor or time yet) of the raw input.
    A price may carry its currency (``"12500 EUR"``) when ``currency`` is not given.

    Raises :class:`InputError` naming the field: ``days`` not a number, not positive or
    above :data:`ESTIMATE_MAX_DAYS`; ``price`` not a number, not positive or above
    :data:`PRICE_MAX`; either written with a thousands separator (the message shows the
    plain figure); ``currency`` missing with a price, given without one, or not a
    current ISO 4217 code (:func:`is_iso4217`);
    ``reason`` empty or longer than :data:`ESTIMATE_REASON_MAX_CHARS`."""
    value = _decimal("days", days)
    if value > ESTIMATE_MAX_DAYS:
        raise InputError(
            f"estimate: field 'days' is {days.strip()}: at most {ESTIMATE_MAX_DAYS} "
            "person-days (a price goes in --price)"
        )
    amount: str | None = None
    code = currency.strip().upper() if currency is not None and currency.strip() else None
    if price is not None and price.strip():
        words = price.split()  # the amount may hold spaces (86 500,00): the code is last
        rest = words[-1:] if len(words) > 1 and words[-1].isalpha() else []
        raw = " ".join(words[: len(words) - len(rest)])
        two_codes = len(words) > 1 and any(c.isalpha() for c in raw)
        if two_codes or (rest and code is not None and rest[0].upper() != code):
            raise InputError(
                f"estimate: field 'price' is {price!r}: write the amount and at most one "
                "currency code, e.g. '12500 EUR'"
            )
        if rest:
            code = rest[0].upper()
        figure = _decimal("price", raw, amount=True)
        if figure > PRICE_MAX:
            raise InputError(f"estimate: field 'price' is {raw}: at most {PRICE_MAX}")
        if code is None:
            raise InputError(
                "estimate: field 'currency' is missing: a price needs its ISO 4217 code "
                "(--currency EUR, TRY, USD)"
            )
        if not is_iso4217(code):
            raise InputError(
                f"estimate: field 'currency' is {code!r}: not the ISO 4217 code of a "
                "currency in use; write e.g. EUR, TRY, USD, CHF or GBP"
            )
        amount = _plain(figure)
    elif code is not None:
        raise InputError("estimate: field 'currency' is given without a price (--price)")
    text = reason.strip()
    if not text:
        raise InputError("estimate: field 'reason' is empty: say what the estimate rests on")
    if len(text) > ESTIMATE_REASON_MAX_CHARS:
        raise InputError(
            f"estimate: field 'reason' has {len(text):,} characters; at most "
            f"{ESTIMATE_REASON_MAX_CHARS:,}"
        )
    return ReviewerEstimate(
        days=_plain(value), reason=text, price=amount, currency=code if amount else None
    )
