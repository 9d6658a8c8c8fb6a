"""Recorder: display, browser launch, video, screenshots, action channel, agent messages, run directory."""
