"""Inference: the local-model client and the extractive methods used when there is none."""
