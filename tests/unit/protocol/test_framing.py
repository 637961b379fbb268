"""JSONL framing: LF only, U+2028/2029 safe, large records, partial reads, damaged lines."""

from __future__ import annotations

import json

from shard_core.protocol import JsonlDecoder, PromptCommand, encode_record
from shard_core.protocol.framing import decode_lines


def _values(decoder: JsonlDecoder, data: bytes) -> list[object]:
    return [r.value for r in decoder.feed(data)]


def test_line_separators_inside_strings_do_not_split() -> None:
    text = "a\u2028b\u2029c\nd"
    data = encode_record({"t": text}) + encode_record({"t": "next"})
    assert data.count(b"\n") == 2
    decoder = JsonlDecoder()
    assert _values(decoder, data) == [{"t": text}, {"t": "next"}]


def test_five_megabyte_record() -> None:
    big = "x" * (5 * 1024 * 1024)
    data = encode_record({"big": big})
    decoder = JsonlDecoder()
    records = decoder.feed(data[:1000]) + decoder.feed(data[1000:])
    assert len(records) == 1
    assert records[0].value == {"big": big}


def test_byte_at_a_time() -> None:
    payload = [{"i": i, "s": "é\u2028漢"} for i in range(5)]
    data = b"".join(encode_record(p) for p in payload)
    decoder = JsonlDecoder()
    out: list[object] = []
    for i in range(len(data)):
        out.extend(r.value for r in decoder.feed(data[i : i + 1]))
    assert out == payload


def test_malformed_middle_line_names_the_line_and_the_stream_continues() -> None:
    data = b'{"a":1}\n{"a": oops}\n{"a":3}\n'
    records = JsonlDecoder().feed(data)
    assert [r.line for r in records] == [1, 2, 3]
    assert records[0].value == {"a": 1}
    assert records[1].error is not None
    assert str(records[1].error).startswith("line 2: invalid JSON")
    assert records[2].value == {"a": 3}


def test_invalid_utf8_is_reported_not_fatal() -> None:
    records = JsonlDecoder().feed(b'{"a":1}\n\xff\xfe\n{"a":2}\n')
    assert [r.value for r in records] == [{"a": 1}, None, {"a": 2}]
    assert "invalid UTF-8" in str(records[1].error)


def test_oversized_record_is_skipped_with_an_error() -> None:
    decoder = JsonlDecoder(max_record_bytes=100)
    records = decoder.feed(b'{"a":"' + b"y" * 200) + decoder.feed(b'"}\n{"b":1}\n')
    assert records[0].error is not None
    assert "exceeds 100 bytes" in str(records[0].error)
    assert records[-1].value == {"b": 1}


def test_final_record_without_newline() -> None:
    records = list(decode_lines(iter([b'{"a":1}\n{"a"', b":2}"])))
    assert [r.value for r in records] == [{"a": 1}, {"a": 2}]


def test_models_encode_to_one_line() -> None:
    data = encode_record(PromptCommand(text="line1\nline2\u2028"))
    assert data.endswith(b"\n")
    assert data.count(b"\n") == 1
    assert json.loads(data)["text"] == "line1\nline2\u2028"


def test_crlf_is_tolerated() -> None:
    assert _values(JsonlDecoder(), b'{"a":1}\r\n') == [{"a": 1}]
