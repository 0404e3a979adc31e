"""The evening survives its laptop: a spare laptop follows the hall, and a backup folder.

``role``
    Which laptop this is: the hall, a spare following one, or a hall its spare
    replaced; the guard every use case passes (only the hall writes); the mark a
    phone's page compares to learn it talks to another laptop now.
``rows``
    What the spare copies, unit by unit (a series, a tournament's own rows, a table
    with its match), row by row with the hall's own ids, and every value checked.
``changes``
    The hall's side: what changed since the spare's confirmed state (fingerprints),
    and the pushes that carry it, in consistent groups.
``pairing``
    The line on the hall's page, typed on the spare's: the code proved, the key derived.
``feed``
    The hall's side: pushing what changed, and learning that the spare took over.
``receive``
    The spare's side: pairing with a hall, taking its pushes, what it holds.
``takeover``
    The spare becomes the hall: one tap, a new generation; the cards' address checked
    (``address``).
``folder``
    With no spare at hand: every tournament and series written to a folder (a USB
    stick), each file complete.
``follow``
    The rounds of ``python -m scorer.follow``: the spare and the folder kept up to date.
"""
