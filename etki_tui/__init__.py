"""``etki-tui``: the Textual reviewer desk. It talks to the core only through
:class:`etki.services.Desk`; the core never imports Textual."""
