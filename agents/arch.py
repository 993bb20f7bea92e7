"""The network's architecture choices, torch-free, so that a config names and checks them without loading torch."""
CRITICS = ("shared", "privileged")  # the value head's inputs: the seat's observation, or also the hidden hands
