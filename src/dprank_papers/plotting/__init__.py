"""Figures of the papers, drawn from aggregated summaries only."""
