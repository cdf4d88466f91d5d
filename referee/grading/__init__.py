"""Grading a class: the compliance check students run before they submit
(``referee check-bot``), gauntlets against fixed reference players with
points and partial credit (``referee grade``), the result files autograding
platforms read, and the packages that put it all on Gradescope or
PrairieLearn (``referee autograder``).  docs/grading.md walks through it."""
