// The agent list every Shard view in this page shares: kept current by the gateway's pushed
// orchestrator events while anything listens, read from the REST registry at once (and after an
// action), and polled every 2 s only while the event subscription is down (an older server, a
// proxy without WebSockets), with a signal when it changed.
import { Signal, type ISignal } from "@lumino/signaling";
import { OrchestratorEvents } from "../client/orchestrator-events";
import { RegistryApi } from "../client/registry-api";
import type { AgentInfo } from "../wire";

const POLL_MS = 2000;

export class AgentDirectory {
  readonly api: RegistryApi;
  readonly events: OrchestratorEvents | null;
  private agents: AgentInfo[] = [];
  private error: string | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private listeners = 0;
  private readonly changedSignal = new Signal<this, void>(this);

  constructor(
    api: RegistryApi = new RegistryApi(),
    events: OrchestratorEvents | null = new OrchestratorEvents(),
  ) {
    this.api = api;
    this.events = events;
    events?.changed.connect(this.onEvents, this);
    events?.liveChanged.connect(this.onLive, this);
  }

  get changed(): ISignal<this, void> {
    return this.changedSignal;
  }

  get list(): readonly AgentInfo[] {
    return this.agents;
  }

  /** Why the list could not be read (no Shard extension on this server, server down). */
  get problem(): string | null {
    return this.error;
  }

  /** Whether the list is pushed (true) or polled (false). */
  get pushed(): boolean {
    return this.events?.live ?? false;
  }

  find(agentId: string): AgentInfo | undefined {
    return this.agents.find((a) => a.id === agentId);
  }

  /** Keeps the list current for one more listener; the returned function stops it for that one. */
  watch(): () => void {
    this.listeners += 1;
    if (this.listeners === 1) {
      this.events?.start();
      void this.refresh();
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.listeners -= 1;
      if (this.listeners > 0) return;
      this.events?.stop();
      this.clearTimer();
    };
  }

  async refresh(): Promise<void> {
    this.clearTimer();
    try {
      this.agents = await this.api.list();
      this.error = null;
    } catch (error) {
      this.error = error instanceof Error ? error.message : String(error);
    }
    this.changedSignal.emit();
    this.schedulePoll();
  }

  private onEvents(): void {
    if (!this.events) return;
    this.agents = this.events.list;
    this.error = null;
    this.changedSignal.emit();
  }

  private onLive(_: OrchestratorEvents, live: boolean): void {
    if (live) this.clearTimer();
    else this.schedulePoll();
  }

  private schedulePoll(): void {
    if (this.listeners === 0 || this.pushed || this.timer !== null) return;
    this.timer = setTimeout(() => void this.refresh(), POLL_MS);
  }

  private clearTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
