"""Real web applications as task environments (issue 34): the corpus in apps/, installed into .tools/apps/."""
