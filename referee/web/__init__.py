"""Pages a person opens in a browser: the replay of one match and the report
of a tournament.  Each page is a single self-contained HTML file (its CSS, JS
and data inlined) so it opens from a USB stick or an e-mail attachment.

Templates live in ``templates/`` (jinja2), styles and scripts in ``static/``;
a game's scene (the ``referee.scenes`` entry point: ``scenes/<game>.py`` for
the built-in games) turns its recomputed states into what its ``SCRIPT``
draws (``static/draw_<game>.js`` for the built-in games).
"""
