"""The report layer: tables (pandas), text, Markdown, JSON and CSV, plots, result files, the findings page."""
