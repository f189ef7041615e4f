"""From result JSONs to tables, figures and the markdown report."""
