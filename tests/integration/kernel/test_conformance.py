"""The Jupyter kernel conformance suite (jupyter_kernel_test) against the `shard` kernelspec."""

from __future__ import annotations

import os
import shutil
import tempfile
import unittest
from pathlib import Path
from typing import Any, ClassVar

import jupyter_kernel_test

from shard_kernel.kernelspec import spec_source

ISOLATED = (
    "JUPYTER_DATA_DIR",
    "JUPYTER_RUNTIME_DIR",
    "JUPYTER_CONFIG_DIR",
    "IPYTHONDIR",
    "SHARD_HOME",
    "XDG_CONFIG_HOME",
    "KERNEL_SHARD_CWD",
)


class ShardKernelConformance(jupyter_kernel_test.KernelTests):
    kernel_name = "shard"
    language_name = "shard"
    file_extension = ".md"

    code_generate_error = "/no-such-command"
    code_display_data: ClassVar[list[dict[str, str]]] = [
        {"code": "/help", "mime": "text/markdown"},
        {"code": "/status", "mime": "text/markdown"},
    ]
    completion_samples: ClassVar[list[dict[str, Any]]] = [
        {"text": "/mo", "matches": {"/mode"}},
        {"text": "/gr", "matches": {"/grants"}},
    ]
    complete_code_samples: ClassVar[list[str]] = ["fix the failing test", "/help"]
    incomplete_code_samples: ClassVar[list[str]] = ["/mode"]

    _saved: ClassVar[dict[str, str | None]] = {}
    _tmp: ClassVar[str] = ""

    @classmethod
    def setUpClass(cls) -> None:
        cls._tmp = tempfile.mkdtemp(prefix="shard-conformance-")
        for name in ISOLATED:
            cls._saved[name] = os.environ.get(name)
            path = Path(cls._tmp) / name.lower()
            path.mkdir()
            os.environ[name] = str(path)
        os.environ["KERNEL_SHARD_AGENT_ID"] = "agent-conformance"
        shutil.copytree(spec_source(), Path(cls._tmp) / "jupyter_data_dir" / "kernels" / "shard")
        super().setUpClass()
        cls._wait_for_the_agent()

    @classmethod
    def _wait_for_the_agent(cls) -> None:
        """The agent boots in the background after kernel_info, and its first status event
        (a comm_msg, which jupyter_kernel_test's schemas do not know) lands whenever the boot
        ends: under load, inside a later test. A cell waits for the boot and its idle follows
        that event, so after this one no test meets it."""
        msg_id = cls.kc.execute("/status")
        while True:
            msg = cls.kc.get_iopub_msg(timeout=120)
            if msg["parent_header"].get("msg_id") != msg_id or msg["msg_type"] != "status":
                continue
            if msg["content"]["execution_state"] == "idle":
                break
        cls.kc.get_shell_msg(timeout=120)

    @classmethod
    def tearDownClass(cls) -> None:
        super().tearDownClass()
        os.environ.pop("KERNEL_SHARD_AGENT_ID", None)
        for name, value in cls._saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(cls._tmp, ignore_errors=True)

    def test_comm_info(self) -> None:
        self.flush_channels()
        msg_id = self.kc.comm_info(target_name="shard")
        reply = self.kc.get_shell_msg(timeout=10)
        assert reply["parent_header"]["msg_id"] == msg_id
        assert reply["content"]["status"] == "ok"
        assert isinstance(reply["content"]["comms"], dict)

    def test_execute_ok(self) -> None:
        self.flush_channels()
        reply, outputs = self.execute_helper("/mode")
        assert reply["content"]["status"] == "ok"
        assert any(m["msg_type"] == "display_data" for m in outputs)


if __name__ == "__main__":
    unittest.main()
