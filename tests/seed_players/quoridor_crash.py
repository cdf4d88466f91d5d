"""A player program that crashes on its first turn (test fixture)."""
import sys

sys.exit("crashing on purpose")
