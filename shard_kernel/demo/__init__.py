"""`shard demo`: a real agent kernel fixes a small buggy project, offline."""
