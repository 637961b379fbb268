// The gateway's pushed orchestrator events (`/shard/api/events`, PROTOCOL.md §3): the agent list
// kept current from agent_spawned / agent_exited / agent_status_changed, resumed after a dropped
// connection with the last `seq` and `epoch` seen (nothing is missed), replaced when the gateway
// answers a resume with a gap snapshot. `live` says whether the list is current; while it is
// not, views fall back to polling the REST registry.
import { URLExt } from "@jupyterlab/coreutils";
import { ServerConnection } from "@jupyterlab/services";
import { Signal, type ISignal } from "@lumino/signaling";
import { isRecord } from "../render/guards";
import type { AgentInfo, OrchestratorEvent, WorkflowUpdatedEvent } from "../wire";

/** What this client needs of a WebSocket (the browser's, or a test double). */
export interface EventSocket {
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: unknown) => void) | null;
  onerror: ((event: unknown) => void) | null;
  close(): void;
}

export type SocketFactory = (url: string) => EventSocket;

export const EVENTS_PATH = "shard/api/events";
const RETRY_MS = [1000, 2000, 5000, 10000, 30000];

/** The subscription URL, resuming after `since` of `epoch` when both are known. */
export function eventsUrl(
  wsBase: string,
  resume: { epoch: string | null; since: number | null },
  token: string | null = null,
): string {
  const query: string[] = [];
  if (resume.epoch !== null && resume.since !== null)
    query.push(`epoch=${encodeURIComponent(resume.epoch)}`, `since=${resume.since}`);
  if (token) query.push(`token=${encodeURIComponent(token)}`);
  return URLExt.join(wsBase, EVENTS_PATH) + (query.length ? `?${query.join("&")}` : "");
}

function defaultFactory(): { factory: SocketFactory; base: string; token: string | null } {
  const settings = ServerConnection.makeSettings();
  const token = settings.appendToken && settings.token ? settings.token : null;
  const Socket = settings.WebSocket;
  return {
    factory: (url) => new Socket(url) as unknown as EventSocket,
    base: settings.wsUrl,
    token,
  };
}

export class OrchestratorEvents {
  private agents = new Map<string, AgentInfo>();
  private epoch: string | null = null;
  private lastSeq: number | null = null;
  private socket: EventSocket | null = null;
  private retry = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running = false;
  private isLive = false;
  private readonly changedSignal = new Signal<this, void>(this);
  private readonly liveSignal = new Signal<this, boolean>(this);
  private readonly workflowSignal = new Signal<this, WorkflowUpdatedEvent>(this);
  private readonly factory: SocketFactory;
  private readonly base: string;
  private readonly token: string | null;
  /** Counters for tests and the panel's tooltip. */
  readonly stats = { events: 0, gaps: 0, reconnects: 0 };

  constructor(options?: { factory: SocketFactory; base: string; token?: string | null }) {
    const chosen = options ?? defaultFactory();
    this.factory = chosen.factory;
    this.base = chosen.base;
    this.token = chosen.token ?? null;
  }

  /** Fired after each event or snapshot changed the list. */
  get changed(): ISignal<this, void> {
    return this.changedSignal;
  }

  /** Fired for each `workflow_updated` event (a workflow run started, moved, asked, ended). */
  get workflowUpdated(): ISignal<this, WorkflowUpdatedEvent> {
    return this.workflowSignal;
  }

  /** Fired when the subscription opens (true: the list is current) or drops (false). */
  get liveChanged(): ISignal<this, boolean> {
    return this.liveSignal;
  }

  get live(): boolean {
    return this.isLive;
  }

  get list(): AgentInfo[] {
    return [...this.agents.values()].sort((a, b) => a.created - b.created);
  }

  get position(): { epoch: string | null; since: number | null } {
    return { epoch: this.epoch, since: this.lastSeq };
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.open();
  }

  stop(): void {
    this.running = false;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      socket.onclose = null;
      socket.close();
    }
    this.setLive(false);
  }

  /** Applies one message from the gateway; unknown or malformed ones are skipped. */
  apply(raw: unknown): void {
    let data: unknown;
    try {
      data = typeof raw === "string" ? JSON.parse(raw) : raw;
    } catch {
      return;
    }
    if (!isRecord(data) || typeof data["seq"] !== "number") return;
    const event = data as unknown as OrchestratorEvent;
    this.stats.events += 1;
    if (event.type === "agents_snapshot") {
      if (event.gap) this.stats.gaps += 1;
      this.epoch = event.epoch;
      this.agents = new Map(event.agents.map((a) => [a.id, a]));
    } else if (event.type === "agent_spawned") {
      this.agents.set(event.agent.id, event.agent);
    } else if (event.type === "agent_exited" || event.type === "agent_status_changed") {
      const row = event.agent ?? null;
      if (row) this.agents.set(row.id, row);
      else if (event.type === "agent_status_changed") this.patch(event);
    } else if (event.type === "workflow_updated") {
      this.lastSeq = event.seq ?? this.lastSeq;
      this.workflowSignal.emit(event);
      return; // the agent list is as it was
    } else {
      return; // a newer gateway's event: keep the position, ignore the content
    }
    this.lastSeq = event.seq ?? this.lastSeq;
    this.changedSignal.emit();
  }

  private patch(event: { agent_id: string; status: string; runtime_state: string }): void {
    const known = this.agents.get(event.agent_id);
    if (known)
      this.agents.set(event.agent_id, {
        ...known,
        status: event.status,
        runtime_state: event.runtime_state,
      } as AgentInfo);
  }

  private open(): void {
    let socket: EventSocket;
    try {
      socket = this.factory(eventsUrl(this.base, this.position, this.token));
    } catch {
      this.scheduleRetry();
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      this.retry = 0;
      this.setLive(true);
    };
    socket.onmessage = (event) => this.apply(event.data);
    socket.onerror = () => undefined; // onclose follows
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.setLive(false);
      this.scheduleRetry();
    };
  }

  private scheduleRetry(): void {
    if (!this.running) return;
    const delay = RETRY_MS[Math.min(this.retry, RETRY_MS.length - 1)];
    this.retry += 1;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.running) return;
      this.stats.reconnects += 1;
      this.open();
    }, delay);
  }

  private setLive(live: boolean): void {
    if (live === this.isLive) return;
    this.isLive = live;
    this.liveSignal.emit(live);
  }
}
