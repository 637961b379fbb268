import { beforeEach, describe, expect, it } from "vitest";
import { renderDashboardView } from "../../labextension/src/widget/dashboard-view";
import { renderPermissionView } from "../../labextension/src/widget/permission-view";
import { FakeModel, ev, resetSeq } from "./helpers";

beforeEach(resetSeq);

const agent = (id: string, fields: Record<string, unknown> = {}) => ({
  id,
  name: `name of ${id}`,
  cwd: "/work/repo",
  model: "claude-x",
  mode: "build",
  status: "idle",
  runtime_state: "running",
  clients: 2,
  usage: {
    input_tokens: 1500,
    output_tokens: 20,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cost_usd: 0.25,
  },
  created: 1,
  kernel_id: null,
  headless_policy: "deny",
  ...fields,
});

describe("dashboard view", () => {
  it("lists agents with status and usage", () => {
    const model = new FakeModel({
      agents: [
        agent("agent-a"),
        agent("agent-b", { status: "streaming", runtime_state: "starting" }),
      ],
    });
    const el = document.createElement("div");
    renderDashboardView({ model, el });
    const rows = [...el.querySelectorAll("tbody tr")].map((tr) =>
      [...tr.querySelectorAll("td")].slice(0, 6).map((td) => td.textContent),
    );
    expect(rows).toEqual([
      [
        "name of agent-aagent-a",
        "idle · running",
        "build",
        "claude-x",
        "2",
        "1.5k in · 20 out · $0.25",
      ],
      [
        "name of agent-bagent-b",
        "streaming · starting",
        "build",
        "claude-x",
        "2",
        "1.5k in · 20 out · $0.25",
      ],
    ]);
  });

  it("attach sends at once; kill asks first", () => {
    const model = new FakeModel({ agents: [agent("agent-a")] });
    const el = document.createElement("div");
    renderDashboardView({ model, el });
    const button = (label: string) =>
      [...el.querySelectorAll("button")].find((b) => b.textContent === label);
    button("Attach")?.click();
    button("Kill")?.click();
    expect(model.sent.map((m) => [m["type"], m["agent_id"]])).toEqual([
      ["attach", "agent-a"],
    ]);
    button("Really kill?")?.click();
    expect(model.sent.map((m) => [m["type"], m["agent_id"]])).toEqual([
      ["attach", "agent-a"],
      ["kill", "agent-a"],
    ]);
    model.emitCustom({
      type: "reply",
      command_id: model.sent[1]?.["id"],
      command: "kill",
      ok: false,
      message: "no agent agent-a on this dashboard",
      data: {},
    });
    expect(el.querySelector(".shard-command-notice")?.textContent).toBe(
      "kill: no agent agent-a on this dashboard",
    );
  });

  it("refreshes when agents change; empty says so", () => {
    const model = new FakeModel({ agents: [agent("agent-a")] });
    const el = document.createElement("div");
    renderDashboardView({ model, el });
    model.set("agents", []);
    expect(el.querySelector(".shard-empty")?.textContent).toBe("No agents.");
  });
});

describe("permission dialog widget view", () => {
  const request = () =>
    ev("permission_request", {
      request_id: "r9",
      tool: "write",
      input: { path: "a.txt" },
      prompt: "Write a.txt?",
      suggested_rule: null,
      read_only: false,
      tool_call_id: null,
      turn_id: null,
    });

  it("answers with a permission_response and closes when resolved is set", () => {
    const model = new FakeModel({
      request: request(),
      resolved: null,
      client_id: "",
    });
    const el = document.createElement("div");
    renderPermissionView({ model, el });
    [...el.querySelectorAll("button")]
      .find((b) => b.textContent === "Deny")
      ?.click();
    expect(model.sent).toEqual([
      {
        type: "permission_response",
        id: expect.any(String),
        request_id: "r9",
        decision: "deny",
        client_id: expect.stringMatching(/^widget-/),
        reason: null,
        rule: null,
        scope: "agent",
        label: expect.stringMatching(/^Tab [0-9a-f]{4}$/), // a person's name, not the id
      },
    ]);
    model.set(
      "resolved",
      ev("permission_resolved", {
        request_id: "r9",
        decision: "deny",
        decided_by: "widget-1",
        source: "client",
        reason: null,
        rule: null,
      }),
    );
    expect(el.querySelector("button")).toBeNull();
    expect(el.querySelector(".shard-dialog-footer")?.textContent).toBe(
      "✗ denied — by widget-1",
    );
  });

  it("without a request shows a placeholder", () => {
    const model = new FakeModel({ request: {}, resolved: null });
    const el = document.createElement("div");
    renderPermissionView({ model, el });
    expect(el.textContent).toBe("No permission request.");
  });
});

describe("a notebook widget's answer names the tab as the Lab extension does", () => {
  it("sends the label the Lab extension gave this tab, the user's name included", async () => {
    const { clientLabel } =
      await import("../../labextension/src/client/identity");
    const label = clientLabel("alice");
    const asked = ev("permission_request", {
      request_id: "r10",
      tool: "write",
      input: { path: "a.txt" },
      prompt: "Write a.txt?",
      suggested_rule: null,
    });
    const model = new FakeModel({
      request: asked,
      resolved: null,
      client_id: "",
    });
    const el = document.createElement("div");
    renderPermissionView({ model, el });
    [...el.querySelectorAll("button")]
      .find((b) => b.textContent === "Allow once")
      ?.click();
    expect(label).toMatch(/^alice · Tab [0-9a-f]{4}$/);
    expect(model.sent).toEqual([
      expect.objectContaining({ label, decision: "allow" }),
    ]);
    sessionStorage.removeItem("shard:client-label");
  });
});
