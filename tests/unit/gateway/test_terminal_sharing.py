"""Whose window sizes an agent's server terminal: the smallest person's while any person set a
size, the agent's own while none did; a size that is not two whole numbers counts for nothing."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shard_kernel.gateway.terminal_sharing import AGENT_QUERY, chosen_size, is_agent


@dataclass
class Request:
    query_arguments: dict[str, list[bytes]] = field(default_factory=dict[str, list[bytes]])


@dataclass
class Client:
    """What terminado's TermSocket has that the policy reads: `size` and its request."""

    size: Any
    request: Request


def person(*size: Any) -> Client:
    return Client(list(size), Request())


def agent(*size: Any) -> Client:
    return Client(list(size), Request({AGENT_QUERY: [b"1"]}))


def test_the_agents_size_holds_only_while_no_person_set_one() -> None:
    assert chosen_size([agent(32, 120)]) == (32, 120)
    assert chosen_size([agent(32, 120), person(20, 60)]) == (20, 60)
    assert chosen_size([agent(32, 120), person(50, 200)]) == (50, 200), "larger than the agent's"
    assert chosen_size([person(50, 80), agent(32, 120), person(40, 100)]) == (40, 80)


def test_a_size_that_is_not_two_whole_numbers_counts_for_nothing() -> None:
    junk = [person(None, None), person("20", 60), person(True, 60), person(0, 60),
            person(20, 10_000), person(20), Client(None, Request())]  # fmt: skip
    assert chosen_size([agent(32, 120), *junk]) == (32, 120)
    assert chosen_size(junk) is None
    assert chosen_size([]) is None


def test_the_agent_is_the_socket_that_said_so() -> None:
    assert is_agent(agent(1, 1))
    assert not is_agent(person(1, 1))
    assert not is_agent(object()), "the registry's own end watcher has no request"
