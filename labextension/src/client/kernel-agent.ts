// KernelAgent: one client of one agent kernel, over a Jupyter kernel connection. It opens the
// `shard` comm with an attach (since = the last seq held), applies the snapshot pages, reads
// events off IOPub by their comm id, syncs a gap, heartbeats, and re-attaches after a restart or
// a reconnect (the kernel connection backs off by itself). Prompts are execute_requests.
import type { Kernel, KernelMessage } from "@jupyterlab/services";
import { isRecord, isString } from "../render/guards";
import { AgentStore, asSnapshot, unpack } from "./agent-store";
import { nextCommandId } from "../widget/commands";
import {
  COMM_TARGET,
  EVENTS_COMM_ID,
  HEARTBEAT_INTERVAL_S,
  SYNC_LIMIT_MAX as PAGE,
} from "../generated/link";

export { COMM_TARGET, EVENTS_COMM_ID };
const HEARTBEAT_MS = HEARTBEAT_INTERVAL_S * 1000;

export type Role = "interactive" | "observer";

export interface KernelAgentOptions {
  readonly clientId: string;
  readonly label: string;
  readonly role?: Role;
  /** true for a connection this client opened itself (not a notebook's session) */
  readonly ownConnection?: boolean;
}

/** Targets of comms the kernel opens (its hosted widgets): a connection that does not know a
 * target closes the comm in the kernel, for every client. Our own connections keep them open. */
const KERNEL_OPENED_TARGETS = ["jupyter.widget"];

export class KernelAgent {
  readonly store: AgentStore;
  private comm: Kernel.IComm | null = null;
  private heartbeat: ReturnType<typeof setInterval> | null = null;
  private reattach = false;
  private disposed = false;

  constructor(
    readonly kernel: Kernel.IKernelConnection,
    private readonly options: KernelAgentOptions,
    store?: AgentStore,
  ) {
    this.store = store ?? new AgentStore(options.clientId, options.label);
    this.store.connect((command) => this.command(command));
    kernel.iopubMessage.connect(this.onIopub, this);
    kernel.statusChanged.connect(this.onStatus, this);
    kernel.connectionStatusChanged.connect(this.onConnection, this);
    if (kernel.handleComms) {
      // stock Lab closes comms whose target it does not know; the kernel may open one
      kernel.registerCommTarget(COMM_TARGET, () => undefined);
      if (options.ownConnection)
        for (const target of KERNEL_OPENED_TARGETS)
          kernel.registerCommTarget(target, () => undefined);
    }
  }

  get clientId(): string {
    return this.options.clientId;
  }

  /** Opens the `shard` comm (again): the snapshot brings everything after the last seq held. */
  attach(): void {
    if (this.disposed || this.kernel.isDisposed) return;
    this.closeComm();
    const comm = this.kernel.createComm(COMM_TARGET);
    comm.onMsg = (msg) => this.onReply(msg.content.data);
    comm.onClose = () => {
      if (this.comm === comm) this.comm = null;
    };
    this.comm = comm;
    comm.open({
      role: this.options.role ?? "interactive",
      client_id: this.options.clientId,
      since: this.store.lastSeq,
      label: this.options.label,
    });
    this.startHeartbeat();
  }

  /** A prompt, or a `/` command: the cell text of an execute_request. */
  prompt(
    text: string,
  ): Kernel.IShellFuture<KernelMessage.IExecuteRequestMsg, KernelMessage.IExecuteReplyMsg> {
    return this.kernel.requestExecute({
      code: text,
      silent: false,
      store_history: true,
      allow_stdin: false,
    });
  }

  /** A protocol command on the comm (with an id so its reply can be matched). */
  command(command: object): void {
    const withId =
      isRecord(command) && isString(command["id"]) ? command : { ...command, id: nextCommandId() };
    if (this.comm === null || this.comm.isDisposed) {
      this.store.reply({
        type: "reply",
        command_id: (withId as { id?: string }).id ?? null,
        command: isRecord(command) ? command["type"] : "command",
        ok: false,
        message: "not attached to the agent (it may be stopped): attach again",
        data: {},
      });
      return;
    }
    this.comm.send(withId as unknown as KernelMessage.ICommMsgMsg["content"]["data"]);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.stopHeartbeat();
    this.closeComm();
    this.kernel.iopubMessage.disconnect(this.onIopub, this);
    this.kernel.statusChanged.disconnect(this.onStatus, this);
    this.kernel.connectionStatusChanged.disconnect(this.onConnection, this);
  }

  private onReply(data: unknown): void {
    const snapshot = asSnapshot(data);
    if (snapshot === null) return this.store.reply(data);
    this.store.applySnapshot(snapshot);
    if (!snapshot.has_more) return;
    const page = snapshot.events.filter(isRecord);
    const last = page.length > 0 ? page[page.length - 1]?.["seq"] : undefined;
    if (typeof last === "number") this.command({ type: "sync", since: last, limit: PAGE });
  }

  private onIopub(_: Kernel.IKernelConnection, msg: KernelMessage.IIOPubMessage): void {
    if (msg.header.msg_type !== "comm_msg") return;
    const content = msg.content as KernelMessage.ICommMsgMsg["content"];
    if (content.comm_id !== EVENTS_COMM_ID) return;
    const gap = this.store.applyLive(unpack(content.data));
    if (gap !== null)
      this.command({ type: "sync", since: gap.since, until: gap.until, limit: PAGE });
  }

  private onStatus(_: Kernel.IKernelConnection, status: Kernel.Status): void {
    if (status === "restarting" || status === "autorestarting") {
      this.reattach = true;
      this.comm = null; // the kernel's comms died with its process
    } else if (status === "dead") {
      this.comm = null;
      this.stopHeartbeat();
      this.store.setStopped("stopped");
    } else if (this.reattach && (status === "idle" || status === "busy")) {
      this.reattach = false;
      this.attach();
    }
  }

  private onConnection(_: Kernel.IKernelConnection, status: Kernel.ConnectionStatus): void {
    if (status === "connected" && (this.comm === null || this.reattach)) {
      this.reattach = false;
      this.attach(); // after a dropped WebSocket: resync by seq, duplicates ignored
    } else if (status === "connecting") {
      this.reattach = true;
    }
  }

  private startHeartbeat(): void {
    this.stopHeartbeat();
    this.heartbeat = setInterval(
      () => this.comm && this.command({ type: "heartbeat", client_id: this.options.clientId }),
      HEARTBEAT_MS,
    );
  }

  private stopHeartbeat(): void {
    if (this.heartbeat !== null) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  private closeComm(): void {
    const comm = this.comm;
    this.comm = null;
    if (comm && !comm.isDisposed) {
      try {
        comm.close();
      } catch {
        // the kernel is gone: nothing to close
      }
    }
  }
}
