import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Kernel } from "../../labextension/node_modules/@jupyterlab/services";
import { Signal } from "../../labextension/node_modules/@lumino/signaling";
import { AgentStore } from "../../labextension/src/client/agent-store";
import {
  COMM_TARGET,
  EVENTS_COMM_ID,
  KernelAgent,
} from "../../labextension/src/client/kernel-agent";

type Rec = Record<string, unknown>;

function at(seq: number, type: string, fields: Rec = {}): Rec {
  return {
    type,
    agent_id: "agent-test",
    seq,
    ts: 1_700_000_000 + seq,
    ...fields,
  };
}

const text = (seq: number): Rec =>
  at(seq, "message_complete", {
    turn_id: "t",
    entry_id: `e${seq}`,
    message: {
      role: "assistant",
      content: [{ type: "text", text: `text ${seq}` }],
    },
  });

const permission = (seq: number, id: string): Rec =>
  at(seq, "permission_request", {
    request_id: id,
    tool: "bash",
    input: { command: "make" },
    prompt: "Run make?",
    read_only: false,
  });

function snapshotReply(fields: Rec = {}): Rec {
  return {
    type: "snapshot",
    command_id: null,
    agent_id: "agent-test",
    status: "idle",
    mode: "build",
    model: "claude-x",
    last_seq: -1,
    pending_permissions: [],
    pending_ui: [],
    events: [],
    has_more: false,
    ...fields,
  };
}

/** The slice of Kernel.IComm KernelAgent uses: records open/send/close, plays replies. */
class FakeComm {
  readonly opened: unknown[] = [];
  readonly sent: Rec[] = [];
  closed = 0;
  isDisposed = false;
  onMsg: ((msg: unknown) => void) | null = null;
  onClose: ((msg: unknown) => void) | null = null;

  constructor(
    readonly targetName: string,
    readonly commId: string,
  ) {}

  open(data: unknown): unknown {
    this.opened.push(data);
    return { done: Promise.resolve() };
  }

  send(data: unknown): unknown {
    this.sent.push(data as Rec);
    return { done: Promise.resolve() };
  }

  close(): unknown {
    this.closed += 1;
    this.isDisposed = true;
    this.onClose?.({ content: { comm_id: this.commId, data: {} } });
    return { done: Promise.resolve() };
  }

  /** The kernel answers on this comm. */
  reply(data: unknown): void {
    this.onMsg?.({
      header: { msg_type: "comm_msg" },
      content: { comm_id: this.commId, data },
    });
  }
}

/** The slice of Kernel.IKernelConnection KernelAgent uses. */
class FakeKernel {
  readonly iopubMessage = new Signal<this, unknown>(this);
  readonly statusChanged = new Signal<this, string>(this);
  readonly connectionStatusChanged = new Signal<this, string>(this);
  handleComms = true;
  isDisposed = false;
  readonly comms: FakeComm[] = [];
  readonly targets: string[] = [];
  readonly executed: unknown[] = [];

  createComm(target: string): FakeComm {
    const comm = new FakeComm(target, `comm-${this.comms.length}`);
    this.comms.push(comm);
    return comm;
  }

  registerCommTarget(name: string, _callback: unknown): void {
    this.targets.push(name);
  }

  requestExecute(content: unknown): unknown {
    this.executed.push(content);
    return { done: Promise.resolve({ content: { status: "ok" } }) };
  }

  /** One IOPub message carrying `data` on `commId`. */
  publish(data: unknown, commId = EVENTS_COMM_ID, msgType = "comm_msg"): void {
    this.iopubMessage.emit({
      header: { msg_type: msgType },
      content: { comm_id: commId, data },
    });
  }

  get comm(): FakeComm {
    const comm = this.comms[this.comms.length - 1];
    if (!comm) throw new Error("no comm was opened");
    return comm;
  }
}

function setup(role?: "interactive" | "observer"): {
  kernel: FakeKernel;
  agent: KernelAgent;
  store: AgentStore;
  replies: unknown[];
} {
  const kernel = new FakeKernel();
  const agent = new KernelAgent(
    kernel as unknown as Kernel.IKernelConnection,
    role
      ? { clientId: "lab-1", label: "alice · Tab 3f2a", role }
      : { clientId: "lab-1", label: "alice · Tab 3f2a" },
  );
  const replies: unknown[] = [];
  agent.store.on("msg:custom", (message) => replies.push(message));
  return { kernel, agent, store: agent.store, replies };
}

const seqs = (store: AgentStore): unknown[] =>
  (store.get("events") as Rec[]).map((e) => e["seq"]);

const notAttached = (command: string, id: unknown): Rec => ({
  type: "reply",
  command_id: id,
  command,
  ok: false,
  message: "not attached to the agent (it may be stopped): attach again",
  data: {},
});

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe("KernelAgent: attach", () => {
  it("registers the shard comm target when the connection handles comms", () => {
    const { kernel } = setup();
    expect(kernel.targets).toEqual([COMM_TARGET]);
    const other = new FakeKernel();
    other.handleComms = false;
    new KernelAgent(other as unknown as Kernel.IKernelConnection, {
      clientId: "x",
      label: "",
    });
    expect(other.targets).toEqual([]);
  });

  it("opens a comm on target shard with role, client id, since and label", () => {
    const { kernel, agent } = setup();
    expect(kernel.comms).toEqual([]);
    agent.attach();
    expect(kernel.comms).toHaveLength(1);
    expect(kernel.comm.targetName).toBe("shard");
    expect(kernel.comm.opened).toEqual([
      {
        role: "interactive",
        client_id: "lab-1",
        since: -1,
        label: "alice · Tab 3f2a",
      },
    ]);
  });

  it("attaches as an observer when asked", () => {
    const { kernel, agent } = setup("observer");
    agent.attach();
    expect(kernel.comm.opened).toEqual([
      {
        role: "observer",
        client_id: "lab-1",
        since: -1,
        label: "alice · Tab 3f2a",
      },
    ]);
  });

  it("applies the snapshot reply: events, status, pending", () => {
    const { kernel, agent, store } = setup();
    agent.attach();
    const request = permission(1, "r1");
    kernel.comm.reply(
      snapshotReply({
        status: "waiting_for_permission",
        mode: "plan",
        last_seq: 1,
        events: [text(0), request],
        pending_permissions: [request],
      }),
    );
    expect(store.get("events")).toEqual([text(0), request]);
    expect(store.get("status")).toBe("waiting_for_permission");
    expect(store.get("mode")).toBe("plan");
    expect(store.get("pending")).toEqual([request]);
    expect(store.lastSeq).toBe(1);
    expect(kernel.comm.sent).toEqual([]); // no more pages
  });

  it("asks for the next page from the last seq received while the snapshot has_more", () => {
    const { kernel, agent, store } = setup();
    agent.attach();
    kernel.comm.reply(
      snapshotReply({
        last_seq: 10,
        events: [text(0), text(1), text(2)],
        has_more: true,
      }),
    );
    expect(kernel.comm.sent).toHaveLength(1);
    const { until, ...sync } = kernel.comm.sent[0] as Rec;
    expect(sync).toEqual({
      type: "sync",
      since: 2,
      limit: 5000,
      id: expect.any(String),
    });
    expect(until === undefined || until === 10).toBe(true);
    kernel.comm.reply(
      snapshotReply({
        last_seq: 10,
        events: [3, 4, 5, 6, 7, 8, 9, 10].map(text),
        has_more: false,
      }),
    );
    expect(kernel.comm.sent).toHaveLength(1);
    expect(seqs(store)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it("passes replies that are not snapshots to the views", () => {
    const { kernel, agent, replies } = setup();
    agent.attach();
    const reply = {
      type: "reply",
      command_id: "c1",
      command: "permission_response",
      ok: false,
      message: "already decided by client-b",
      data: {},
    };
    kernel.comm.reply(reply);
    expect(replies).toEqual([reply]);
  });

  it("attaching again closes the previous comm", () => {
    const { kernel, agent } = setup();
    agent.attach();
    const first = kernel.comm;
    agent.attach();
    expect(kernel.comms).toHaveLength(2);
    expect(first.closed).toBe(1);
    expect(kernel.comm.closed).toBe(0);
  });
});

describe("KernelAgent: live events", () => {
  it("feeds comm_msgs on shard-events into the store, single or batched", () => {
    const { kernel, agent, store } = setup();
    agent.attach();
    kernel.publish(text(0));
    kernel.publish({ type: "event_batch", events: [text(1), text(2)] });
    expect(store.get("events")).toEqual([text(0), text(1), text(2)]);
    expect(kernel.comm.sent).toEqual([]);
  });

  it("ignores other comm ids and other message types", () => {
    const { kernel, agent, store } = setup();
    agent.attach();
    kernel.publish(text(0), "some-widget-comm");
    kernel.publish(text(1), EVENTS_COMM_ID, "comm_open");
    kernel.publish(text(2), EVENTS_COMM_ID, "display_data");
    expect(store.get("events")).toEqual([]);
    expect(store.lastSeq).toBe(-1);
  });

  it("asks for the missing range when a live event skips seqs", () => {
    const { kernel, agent, store } = setup();
    agent.attach();
    kernel.publish(text(0));
    kernel.publish(text(3));
    expect(kernel.comm.sent).toEqual([
      { type: "sync", since: 0, until: 2, limit: 5000, id: expect.any(String) },
    ]);
    kernel.comm.reply(
      snapshotReply({ last_seq: 3, events: [text(1), text(2)] }),
    );
    expect(seqs(store)).toEqual([0, 1, 2, 3]);
    expect(kernel.comm.sent).toHaveLength(1);
  });
});

describe("KernelAgent: restarts and reconnects", () => {
  it("re-attaches after restarting → idle, since the last seq held, without duplicates", () => {
    const { kernel, agent, store } = setup();
    agent.attach();
    kernel.comm.reply(
      snapshotReply({ last_seq: 2, events: [text(0), text(1), text(2)] }),
    );
    kernel.publish(text(3));
    kernel.publish(text(4));
    kernel.statusChanged.emit("restarting");
    expect(kernel.comms).toHaveLength(1); // not before the new kernel is up
    kernel.statusChanged.emit("idle");
    expect(kernel.comms).toHaveLength(2);
    expect(kernel.comm.opened).toEqual([
      {
        role: "interactive",
        client_id: "lab-1",
        since: 4,
        label: "alice · Tab 3f2a",
      },
    ]);
    // the snapshot repeats what the store holds, plus what the new process said
    kernel.comm.reply(
      snapshotReply({
        last_seq: 6,
        events: [
          text(3),
          text(4),
          at(5, "restarted", { lost: [], entries: 3 }),
          text(6),
        ],
      }),
    );
    expect(seqs(store)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    // one re-attach only
    kernel.statusChanged.emit("busy");
    kernel.statusChanged.emit("idle");
    expect(kernel.comms).toHaveLength(2);
  });

  it("does not re-attach on idle or busy without a restart", () => {
    const { kernel, agent } = setup();
    agent.attach();
    kernel.statusChanged.emit("busy");
    kernel.statusChanged.emit("idle");
    expect(kernel.comms).toHaveLength(1);
  });

  it("commands while the kernel restarts reply ok: false", () => {
    const { kernel, agent, store, replies } = setup();
    agent.attach();
    kernel.statusChanged.emit("autorestarting");
    store.send({ type: "abort", id: "a1" });
    expect(kernel.comm.sent).toEqual([]);
    expect(replies).toEqual([notAttached("abort", "a1")]);
  });

  it("re-attaches after the connection drops and comes back", () => {
    const { kernel, agent } = setup();
    agent.attach();
    kernel.comm.reply(
      snapshotReply({ last_seq: 1, events: [text(0), text(1)] }),
    );
    const first = kernel.comm;
    kernel.connectionStatusChanged.emit("connecting");
    expect(kernel.comms).toHaveLength(1);
    kernel.connectionStatusChanged.emit("connected");
    expect(kernel.comms).toHaveLength(2);
    expect(first.closed).toBe(1);
    expect(kernel.comm.opened).toEqual([
      {
        role: "interactive",
        client_id: "lab-1",
        since: 1,
        label: "alice · Tab 3f2a",
      },
    ]);
    // an idle status after it does not attach a third time
    kernel.statusChanged.emit("idle");
    expect(kernel.comms).toHaveLength(2);
  });

  it("does not re-attach on connected while its comm is open", () => {
    const { kernel, agent } = setup();
    agent.attach();
    kernel.connectionStatusChanged.emit("connected");
    expect(kernel.comms).toHaveLength(1);
  });

  it("marks the store stopped when the kernel dies, and refuses commands after", () => {
    const { kernel, agent, store, replies } = setup();
    agent.attach();
    kernel.comm.reply(
      snapshotReply({
        status: "waiting_for_permission",
        last_seq: 0,
        events: [permission(0, "r1")],
        pending_permissions: [permission(0, "r1")],
      }),
    );
    kernel.statusChanged.emit("dead");
    expect(store.get("status")).toBe("stopped");
    expect(store.get("pending")).toEqual([]);
    expect(store.get("pending_ui")).toEqual([]);
    expect(seqs(store)).toEqual([0]);
    agent.command({ type: "steer", text: "hi", id: "s1" });
    expect(kernel.comm.sent).toEqual([]);
    expect(replies).toEqual([notAttached("steer", "s1")]);
    // no heartbeat for a dead kernel
    vi.advanceTimersByTime(60_000);
    expect(kernel.comm.sent).toEqual([]);
  });
});

describe("KernelAgent: commands and prompts", () => {
  it("replies ok: false to a command while not attached", () => {
    const { kernel, agent, replies } = setup();
    agent.command({ type: "abort", id: "a1" });
    agent.command({ type: "set_mode", mode: "plan" });
    expect(kernel.comms).toEqual([]);
    expect(replies).toHaveLength(2);
    expect(replies[0]).toEqual(notAttached("abort", "a1"));
    expect(replies[1]).toEqual(notAttached("set_mode", expect.any(String)));
  });

  it("sends a command on the comm, with an id added when it has none", () => {
    const { kernel, agent, store } = setup();
    agent.attach();
    store.send({ type: "steer", text: "faster", id: "s1" });
    agent.command({ type: "set_mode", mode: "plan" });
    expect(kernel.comm.sent).toEqual([
      { type: "steer", text: "faster", id: "s1" },
      { type: "set_mode", mode: "plan", id: expect.any(String) },
    ]);
  });

  it("heartbeats while attached", () => {
    const { kernel, agent } = setup();
    agent.attach();
    vi.advanceTimersByTime(20_000);
    expect(kernel.comm.sent).toEqual([
      { type: "heartbeat", client_id: "lab-1", id: expect.any(String) },
    ]);
    vi.advanceTimersByTime(20_000);
    expect(kernel.comm.sent).toHaveLength(2);
  });

  it("prompts with an execute_request of the text", () => {
    const { kernel, agent } = setup();
    const future = agent.prompt("/mode plan");
    expect(kernel.executed).toEqual([
      {
        code: "/mode plan",
        silent: false,
        store_history: true,
        allow_stdin: false,
      },
    ]);
    expect(future).toBeDefined();
  });
});

describe("KernelAgent: dispose", () => {
  it("closes the comm, stops the heartbeat and disconnects from the kernel's signals", () => {
    const { kernel, agent, store } = setup();
    agent.attach();
    kernel.comm.reply(snapshotReply({ last_seq: 0, events: [text(0)] }));
    agent.dispose();
    expect(kernel.comm.closed).toBe(1);
    kernel.publish(text(1));
    kernel.statusChanged.emit("dead");
    kernel.statusChanged.emit("restarting");
    kernel.statusChanged.emit("idle");
    kernel.connectionStatusChanged.emit("connecting");
    kernel.connectionStatusChanged.emit("connected");
    vi.advanceTimersByTime(60_000);
    expect(seqs(store)).toEqual([0]);
    expect(store.get("status")).toBe("idle");
    expect(kernel.comms).toHaveLength(1);
    expect(kernel.comm.sent).toEqual([]);
    agent.attach();
    expect(kernel.comms).toHaveLength(1);
    agent.dispose(); // twice is harmless
    expect(kernel.comm.closed).toBe(1);
  });

  it("does not attach to a disposed kernel", () => {
    const { kernel, agent } = setup();
    kernel.isDisposed = true;
    agent.attach();
    expect(kernel.comms).toEqual([]);
  });
});
