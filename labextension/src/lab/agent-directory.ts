// The agent list every Shard view in this page shares: the registry polled every 2 s while
// anything listens (and at once after an action), with a signal when it changed.
import { Signal, type ISignal } from "@lumino/signaling";
import { RegistryApi } from "../client/registry-api";
import type { AgentInfo } from "../wire";

const POLL_MS = 2000;

export class AgentDirectory {
  readonly api: RegistryApi;
  private agents: AgentInfo[] = [];
  private error: string | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private listeners = 0;
  private readonly changedSignal = new Signal<this, void>(this);

  constructor(api: RegistryApi = new RegistryApi()) {
    this.api = api;
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

  find(agentId: string): AgentInfo | undefined {
    return this.agents.find((a) => a.id === agentId);
  }

  /** Starts polling for one more listener; the returned function stops it for that one. */
  watch(): () => void {
    this.listeners += 1;
    if (this.listeners === 1) void this.refresh();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.listeners -= 1;
      if (this.listeners === 0 && this.timer !== null) clearTimeout(this.timer);
    };
  }

  async refresh(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    try {
      this.agents = await this.api.list();
      this.error = null;
    } catch (error) {
      this.error = error instanceof Error ? error.message : String(error);
    }
    this.changedSignal.emit();
    if (this.listeners > 0) this.timer = setTimeout(() => void this.refresh(), POLL_MS);
  }
}
