"""Interceptor: CDP client, target attachment, spec matching, blocking, HTTP layer, HAR; spec loading/checking."""
