"""The protocol version: bumped on any change a client of the previous version cannot read."""

PROTOCOL_VERSION = "1.3"
"""major.minor: a minor bump only adds optional fields or new message types."""
