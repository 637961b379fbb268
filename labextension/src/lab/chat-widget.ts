// AgentChat: one agent in a main-area tab — the transcript restored from the agent's log, then
// live; the composer; Stop, mode and usage from the shared agent view. Every tab and browser
// that opens the same agent sees the same stream. The lifecycle is said in words: "stopped —
// Restart?" when the kernel is gone, and an automatic re-attach when the agent's kernel changes.
import { PageConfig } from "@jupyterlab/coreutils";
import type { ServiceManager } from "@jupyterlab/services";
import { Widget } from "@lumino/widgets";
import { button, h } from "../render/dom";
import { isRecord, isString } from "../render/guards";
import { AgentStore } from "../client/agent-store";
import { KernelAgent } from "../client/kernel-agent";
import { tabClientId } from "../client/identity";
import { isBusy } from "../widget/agent-header";
import { renderAgentView } from "../widget/agent-view";
import * as commands from "../widget/commands";
import { asReply, commandsOf } from "../widget/replies";
import type { AgentInfo, ImageBlock, PromptCommand } from "../wire";
import type { AgentDirectory } from "./agent-directory";
import { Composer } from "../widget/composer";
import { ComposerImages } from "../widget/composer-images";
import { hasContextMentions, mentionOptions, resolveContextMentions } from "./mentions";
import { injectContexts, mentionNotebooks, resolveVarMentions, varMentions } from "./var-mentions";
import { watchRewinds } from "./rewind-notices";

export class AgentChat extends Widget {
  readonly store: AgentStore;
  private agent: KernelAgent | null = null;
  private kernelId: string | null = null;
  private readonly banner: HTMLElement;
  /** the agent's name over the chat where no tab shows it (Notebook 7's side panel) */
  private readonly heading: HTMLElement | null;
  private readonly composer: Composer;
  private readonly images: ComposerImages;
  private readonly cleanups: (() => void)[] = [];
  private connecting = false;
  /** the steer this tab sent last: the composer shows its receipt */
  private lastSteer: string | null = null;

  constructor(
    readonly agentId: string,
    private readonly directory: AgentDirectory,
    private readonly services: ServiceManager.IManager,
    label: string,
    { heading = false }: { heading?: boolean } = {},
  ) {
    super();
    this.id = `shard-chat-${agentId}`;
    this.addClass("shard-chat");
    this.addClass("shard-widget");
    this.node.setAttribute("role", "region");
    this.title.closable = true;
    this.heading = heading ? h("h2", { class: "shard-chat-heading" }) : null;
    this.store = new AgentStore(tabClientId(), label);
    this.banner = h("div", { class: "shard-banner", attrs: { role: "status" } });
    this.banner.hidden = true;
    const view = h("div", { class: "shard-chat-view" });
    this.composer = new Composer({
      prompt: (text) => this.prompt(text),
      steer: (text) => {
        const message = commands.steer(text, this.images.take());
        this.lastSteer = message.steer_id;
        this.store.send(message);
      },
      wantCommands: () => this.store.send(commands.listCommands()),
      mentionOptions: (word) =>
        mentionOptions(word, {
          tracker: mentionNotebooks(),
          contents: this.services.contents,
          cwd: this.directory.find(this.agentId)?.cwd ?? "",
          root: PageConfig.getOption("serverRoot") || "",
        }),
    });
    this.composer.setEnabled(false); // until the attach: a prompt typed earlier would be lost
    this.images = new ComposerImages(this.composer.input, (why) =>
      this.composer.showState(why, "error"),
    );
    this.composer.el.prepend(this.images.el);
    this.node.append(...(this.heading ? [this.heading] : []), this.banner, view, this.composer.el);
    this.cleanups.push(renderAgentView({ model: this.store, el: view }, { composer: false }));
    const onStatus = (): void => {
      const status = this.store.get("status");
      this.composer.setBusy(isString(status) && isBusy(status));
    };
    const onReply = (message: unknown): void => this.onReply(message);
    const onSteers = (): void => this.onSteerReceipt();
    const onTitle = (): void => this.updateTitle(this.directory.find(agentId));
    this.store.on("change:status", onStatus);
    this.store.on("msg:custom", onReply);
    this.store.on("change:steers", onSteers);
    this.store.on("change:title", onTitle);
    this.cleanups.push(() => {
      this.store.off("change:status", onStatus);
      this.store.off("msg:custom", onReply);
      this.store.off("change:steers", onSteers);
      this.store.off("change:title", onTitle);
    });
    const root = PageConfig.getOption("serverRoot");
    this.cleanups.push(watchRewinds(this.store, root, () => this.directory.find(agentId)?.cwd));
    this.directory.changed.connect(this.onDirectory, this);
    this.cleanups.push(this.directory.watch());
    this.updateTitle(this.directory.find(agentId));
  }

  /** Whether the chat is attached to the agent's kernel (commands sent now reach it). */
  get attached(): boolean {
    return this.agent !== null;
  }

  /** Attaches (starting the agent's kernel when it is stopped). */
  async open(): Promise<void> {
    if (this.connecting) return;
    this.connecting = true;
    this.showBanner("Attaching…", null);
    try {
      const info = await this.directory.api.attach(this.agentId);
      this.connect(info);
      void this.directory.refresh();
    } catch (error) {
      this.showStopped(
        `Could not attach: ${error instanceof Error ? error.message : String(error)}`,
      );
    } finally {
      this.connecting = false;
    }
  }

  override dispose(): void {
    if (this.isDisposed) return;
    this.directory.changed.disconnect(this.onDirectory, this);
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    this.disconnect();
    super.dispose();
  }

  private connect(info: AgentInfo): void {
    if (!info.kernel_id) return this.showStopped("The agent has no running kernel.");
    this.disconnect();
    const kernel = this.services.kernels.connectTo({
      model: { id: info.kernel_id, name: "shard" },
      handleComms: true,
    });
    this.kernelId = info.kernel_id;
    this.agent = new KernelAgent(
      kernel,
      {
        clientId: this.store.clientId,
        label: String(this.store.get("client_label") ?? ""),
        ownConnection: true,
      },
      this.store,
    );
    this.agent.attach();
    this.store.send(commands.listCommands()); // the `/` menu: the agent's own commands
    this.hideBanner();
    this.composer.setEnabled(true);
    this.updateTitle(info);
  }

  private disconnect(): void {
    const agent = this.agent;
    this.agent = null;
    this.kernelId = null;
    if (agent) {
      agent.dispose();
      agent.kernel.dispose(); // our own connection (WebSocket), not the kernel
    }
    this.store.connect(null);
  }

  private onDirectory(): void {
    const info = this.directory.find(this.agentId);
    this.updateTitle(info);
    if (info === undefined) return;
    if (info.runtime_state === "stopped" || info.runtime_state === "failed") {
      if (this.agent !== null || this.banner.hidden) {
        this.disconnect();
        this.store.setStopped("stopped");
        this.showStopped(info.error ? `stopped — ${info.error}` : "stopped");
      }
    } else if (
      info.runtime_state === "running" &&
      info.kernel_id &&
      info.kernel_id !== this.kernelId &&
      !this.connecting
    ) {
      this.connect(info); // restarted elsewhere: follow it, resuming by seq
    }
  }

  private prompt(text: string): void {
    if (this.agent === null)
      return this.composer.showState("Not attached: restart the agent first.", "error");
    if (text.startsWith("/")) {
      // on the comm, not as a cell: its output is a command_output event in the transcript
      const label = String(this.store.get("client_label") ?? "") || null;
      return this.store.send(commands.slash(text, this.store.clientId, label));
    }
    const images = this.images.take();
    if (varMentions(text).length > 0 || hasContextMentions(text) || images.length > 0)
      return void this.promptWith(text, images);
    const future = this.agent.prompt(text);
    future.done.catch(() => undefined); // the turn's outcome arrives as events
  }

  /** `@var:` mentions become context first (var-mentions.ts); pasted images go with the
   * prompt command. A problem keeps the text and the images in the composer. */
  private async promptWith(text: string, images: ImageBlock[]): Promise<void> {
    const keep = (problem: string): void => {
      if (!this.composer.input.value) this.composer.input.value = text;
      this.images.restore(images);
      this.composer.showState(problem, "error");
    };
    if (varMentions(text).length > 0) {
      this.composer.showState("Summarising the mentioned variables…", "info");
      const outcome = await resolveVarMentions(text);
      const problem = outcome.ok
        ? await injectContexts(this.store, outcome.contexts)
        : outcome.message;
      if (problem !== null) return keep(problem);
    }
    if (hasContextMentions(text)) {
      const sources = {
        tracker: mentionNotebooks(),
        agentId: this.agentId,
        cwd: this.directory.find(this.agentId)?.cwd ?? "",
        settings: this.services.serverSettings,
      };
      const outcome = await resolveContextMentions(text, sources, images);
      const problem = outcome.ok
        ? await injectContexts(this.store, outcome.contexts)
        : outcome.message;
      if (problem !== null) return keep(problem);
      if (outcome.ok) images.splice(0, images.length, ...outcome.images);
    }
    if (this.agent === null) return keep("Not attached: restart the agent first.");
    this.composer.showState("", "info");
    if (images.length === 0) return void this.agent.prompt(text).done.catch(() => undefined);
    const message: PromptCommand = { type: "prompt", id: commands.nextCommandId(), text, images };
    const onReply = (reply: unknown): void => {
      if (!isRecord(reply) || reply["command_id"] !== message.id) return;
      this.store.off("msg:custom", onReply);
      if (reply["ok"] !== true) keep(`Not sent: ${String(reply["message"] ?? "")}`);
    };
    this.store.on("msg:custom", onReply);
    this.store.send(message);
  }

  private onReply(message: unknown): void {
    const reply = asReply(message);
    if (reply?.command === "list_commands") return this.composer.setCommands(commandsOf(reply));
    if (reply?.command === "slash" && !reply.ok && reply.data["seq"] === undefined)
      return this.composer.showState(`Command not run: ${reply.message}`, "error");
    if (!isRecord(message) || message["command"] !== "steer") return;
    if (message["ok"] !== true)
      this.composer.showState(`Steer refused: ${String(message["message"] ?? "")}`, "error");
  }

  /** The receipt of the steer this tab sent: admitted, rejected (why), superseded, queued. */
  private onSteerReceipt(): void {
    const steers = this.store.get("steers");
    const receipt = isRecord(steers) && this.lastSteer ? steers[this.lastSteer] : undefined;
    if (isRecord(receipt)) this.composer.showReceipt(receipt);
  }

  private showStopped(text: string): void {
    this.composer.setEnabled(false);
    this.showBanner(`${text} — Restart?`, () => void this.open());
  }

  private showBanner(text: string, restart: (() => void) | null): void {
    this.banner.replaceChildren(
      h("span", { class: "shard-banner-text" }, text),
      ...(restart ? [button("Restart", restart, "shard-button-primary shard-restart")] : []),
    );
    this.banner.hidden = false;
  }

  private hideBanner(): void {
    this.banner.hidden = true;
    this.banner.replaceChildren();
  }

  private updateTitle(info: AgentInfo | undefined): void {
    const name = info?.name ?? this.agentId;
    const session = String(this.store.get("title") ?? "");
    this.title.label = `Shard: ${name}`;
    const about = info ? `${name} — ${info.cwd} (${info.model}, ${info.mode})` : name;
    this.title.caption = session ? `${about}\n${session}` : about;
    this.node.setAttribute("aria-label", this.title.label);
    if (this.heading) {
      this.heading.textContent = this.title.label;
      this.heading.title = this.title.caption;
    }
  }
}
