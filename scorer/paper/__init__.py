"""The tournament's paper: what each printout shows (:mod:`.printouts`), and a round's table
cards and slips made ahead by the job queue's worker after each change (:mod:`.ahead`).

The PDFs themselves are drawn by :mod:`scorer.pdf.tournament` (which knows no
tournament row); when a tap gets them (kept, rendered, or "being prepared") is
the view's (:mod:`scorer.views.tournaments.printouts`).
"""
