import { afterEach, describe, expect, it, vi } from "vitest";
import {
  OrchestratorEvents,
  eventsUrl,
  type EventSocket,
} from "../../labextension/src/client/orchestrator-events";
import { RegistryApi } from "../../labextension/src/client/registry-api";
import { AgentDirectory } from "../../labextension/src/lab/agent-directory";
import type { AgentInfo } from "../../labextension/src/wire";

/** A WebSocket double: the test plays the server (open, send, drop). */
class FakeSocket implements EventSocket {
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: unknown) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  closed = false;
  constructor(readonly url: string) {}
  open(): void {
    this.onopen?.({});
  }
  send(message: object): void {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
  drop(): void {
    this.onerror?.({});
    this.onclose?.({});
  }
  close(): void {
    this.closed = true;
  }
}

function agent(
  id: string,
  runtime_state = "running",
  status = "idle",
): AgentInfo {
  return {
    id,
    name: id,
    cwd: "/w",
    model: "scripted/demo",
    mode: "build",
    status,
    runtime_state,
    clients: 0,
    clients_by_role: { interactive: 0, observer: 0 },
    usage: {},
    created: Number(id.replace(/\D/g, "")) || 1,
    headless_policy: "deny",
  } as unknown as AgentInfo;
}

function nth(sockets: FakeSocket[], index: number): FakeSocket {
  const socket = sockets[index];
  if (!socket) throw new Error(`no socket ${index} was opened`);
  return socket;
}

function client(): { events: OrchestratorEvents; sockets: FakeSocket[] } {
  const sockets: FakeSocket[] = [];
  const events = new OrchestratorEvents({
    base: "ws://127.0.0.1:8888/base/",
    factory: (url) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return socket;
    },
  });
  return { events, sockets };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("OrchestratorEvents", () => {
  it("builds the subscription URL, resuming only with an epoch and a seq", () => {
    expect(eventsUrl("ws://h/b/", { epoch: null, since: null })).toBe(
      "ws://h/b/shard/api/events",
    );
    expect(eventsUrl("ws://h/b/", { epoch: "ab12", since: 7 }, "t k")).toBe(
      "ws://h/b/shard/api/events?epoch=ab12&since=7&token=t%20k",
    );
  });

  it("keeps the list from the snapshot and the pushed events", () => {
    const { events, sockets } = client();
    const changed = vi.fn();
    events.changed.connect(changed);
    events.start();
    nth(sockets, 0).open();
    expect(events.live).toBe(true);
    nth(sockets, 0).send({
      type: "agents_snapshot",
      epoch: "e1",
      seq: 4,
      agents: [agent("agent-1")],
      gap: false,
      ts: 1,
    });
    nth(sockets, 0).send({
      type: "agent_spawned",
      seq: 5,
      agent: agent("agent-2"),
      ts: 2,
    });
    nth(sockets, 0).send({
      type: "agent_status_changed",
      seq: 6,
      agent_id: "agent-2",
      status: "streaming",
      runtime_state: "running",
      agent: agent("agent-2", "running", "streaming"),
      ts: 3,
    });
    nth(sockets, 0).send({
      type: "agent_exited",
      seq: 7,
      agent_id: "agent-1",
      agent: agent("agent-1", "stopped"),
      ts: 4,
    });
    nth(sockets, 0).send({ type: "job_started", seq: 8, ts: 5 }); // a newer gateway's event
    nth(sockets, 0).onmessage?.({ data: "not json" });
    expect(events.list.map((a) => [a.id, a.runtime_state, a.status])).toEqual([
      ["agent-1", "stopped", "idle"],
      ["agent-2", "running", "streaming"],
    ]);
    expect(changed).toHaveBeenCalledTimes(4);
    expect(events.position).toEqual({ epoch: "e1", since: 7 });
  });

  it("resumes after a drop with since and epoch, and takes a gap snapshot whole", () => {
    vi.useFakeTimers();
    const { events, sockets } = client();
    const live: boolean[] = [];
    events.liveChanged.connect((_, value) => live.push(value));
    events.start();
    nth(sockets, 0).open();
    nth(sockets, 0).send({
      type: "agents_snapshot",
      epoch: "e1",
      seq: 2,
      agents: [],
      gap: false,
      ts: 1,
    });
    nth(sockets, 0).send({
      type: "agent_spawned",
      seq: 3,
      agent: agent("agent-1"),
      ts: 2,
    });
    nth(sockets, 0).drop();
    expect(events.live).toBe(false);
    vi.advanceTimersByTime(1000);
    expect(sockets).toHaveLength(2);
    expect(nth(sockets, 1).url).toBe(
      "ws://127.0.0.1:8888/base/shard/api/events?epoch=e1&since=3",
    );
    nth(sockets, 1).open();
    nth(sockets, 1).send({
      type: "agent_spawned",
      seq: 4,
      agent: agent("agent-2"),
      ts: 3,
    });
    expect(events.list.map((a) => a.id)).toEqual(["agent-1", "agent-2"]);

    nth(sockets, 1).drop(); // this time the gateway restarted: its answer is a gap snapshot
    vi.advanceTimersByTime(1000);
    nth(sockets, 2).open();
    nth(sockets, 2).send({
      type: "agents_snapshot",
      epoch: "e2",
      seq: 0,
      agents: [agent("agent-9")],
      gap: true,
      ts: 4,
    });
    expect(events.list.map((a) => a.id)).toEqual(["agent-9"]);
    expect(events.stats).toEqual({ events: 4, gaps: 1, reconnects: 2 });
    expect(live).toEqual([true, false, true, false, true]);
    events.stop();
    expect(nth(sockets, 2).closed).toBe(true);
    vi.advanceTimersByTime(60000);
    expect(sockets).toHaveLength(3); // stopped: no reconnect
  });
});

class CountingApi extends RegistryApi {
  calls = 0;
  constructor(private readonly rows: AgentInfo[]) {
    super({} as never);
  }
  override list(): Promise<AgentInfo[]> {
    this.calls += 1;
    return Promise.resolve(this.rows);
  }
}

describe("AgentDirectory", () => {
  it("polls only while the event subscription is down", async () => {
    vi.useFakeTimers();
    const { events, sockets } = client();
    const api = new CountingApi([agent("agent-1")]);
    const directory = new AgentDirectory(api, events);
    const stop = directory.watch();
    await vi.advanceTimersByTimeAsync(0);
    expect(api.calls).toBe(1); // read at once
    expect(directory.pushed).toBe(false);
    await vi.advanceTimersByTimeAsync(2000);
    expect(api.calls).toBe(2); // not live yet: polled

    nth(sockets, 0).open();
    nth(sockets, 0).send({
      type: "agents_snapshot",
      epoch: "e1",
      seq: 1,
      agents: [agent("agent-1"), agent("agent-2")],
      gap: false,
      ts: 1,
    });
    expect(directory.pushed).toBe(true);
    expect(directory.list.map((a) => a.id)).toEqual(["agent-1", "agent-2"]);
    await vi.advanceTimersByTimeAsync(10000);
    expect(api.calls).toBe(2); // pushed: no polling

    nth(sockets, 0).drop(); // the socket fails: the poll takes over until it is back
    await vi.advanceTimersByTimeAsync(2000);
    expect(api.calls).toBe(3);
    stop();
    await vi.advanceTimersByTimeAsync(60000);
    expect(api.calls).toBe(3);
    expect(sockets.every((s) => s.closed || s !== sockets.at(-1))).toBe(true);
  });

  it("works without an event client (polling only)", async () => {
    vi.useFakeTimers();
    const api = new CountingApi([agent("agent-1")]);
    const directory = new AgentDirectory(api, null);
    const stop = directory.watch();
    await vi.advanceTimersByTimeAsync(4100);
    expect(api.calls).toBe(3);
    stop();
  });
});
