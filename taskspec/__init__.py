"""The task spec: model, YAML source + checking, URL patterns, field paths, volatile fields, authoring. Pure data."""
