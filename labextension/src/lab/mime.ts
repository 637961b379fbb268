// The mime renderers for Shard's outputs: `application/vnd.shard.render+json` (tool cards,
// diffs, markdown, `%%shard` transcript snapshots) and `application/vnd.shard.permission+json`
// (a permission prompt whose buttons answer it while the notebook's shard kernel is live).
// Both run no scripts and build DOM from text, so they declare themselves safe: untrusted
// notebooks render them too. Ranked ahead of the widget view, so a `%%shard` output whose live
// widget is gone (kernel restarted) shows its snapshot instead of "model not found".
import type { IRenderMime } from "@jupyterlab/rendermime-interfaces";
import { Widget } from "@lumino/widgets";
import { isRecord, isString } from "../render/guards";
import { h } from "../render/dom";
import { PermissionDialogView, type PermissionAnswer } from "../render/dialogs/permission-dialog";
import type { PermissionRequestEvent, PermissionResolvedEvent } from "../wire";
import * as commands from "../widget/commands";
import { kernelAgents } from "./kernel-agents";
import { renderOutput, runningSince } from "./static-output";
import { formatElapsed } from "../widget/agent-header";
import { promptFocus } from "../widget/follow";
import { tabClientId } from "../client/identity";

export const RENDER_MIME = "application/vnd.shard.render+json";
export const PERMISSION_MIME = "application/vnd.shard.permission+json";
const WIDGET_VIEW_MIME = "application/vnd.jupyter.widget-view+json";
const RANK = -20; // the widget view is -10
const NO_KERNEL = "No running Shard kernel: this prompt can only be answered while its agent runs.";

class RenderOutput extends Widget implements IRenderMime.IRenderer {
  private model: IRenderMime.IMimeModel | null = null;
  private ticker: ReturnType<typeof setInterval> | null = null;

  constructor() {
    super();
    this.addClass("shard-mime-output");
    this.node.dataset["mimeType"] = RENDER_MIME; // as Lab's own renderers tag their output
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this.model = model;
    this.node.replaceChildren(renderOutput(model.data[RENDER_MIME]));
    this.tick();
    if (this.isAttached) {
      this.foldEcho();
      void this.preferLiveWidget();
    }
  }

  protected override onAfterAttach(): void {
    this.tick();
    this.foldEcho();
    void this.preferLiveWidget();
  }

  /** A decision line whose prompt, above it in the same cell, already says it: shown once. */
  private foldEcho(): void {
    const data = this.model?.data[RENDER_MIME];
    const event = isRecord(data) ? data["event"] : null;
    if (!isRecord(event) || event["type"] !== "permission_resolved") return;
    const area = this.node.closest(".jp-OutputArea");
    const id = String(event["request_id"] ?? "");
    this.node.dataset["shardEcho"] = id; // the prompt folds it when it says the answer later
    const prompt = area?.querySelector(`[data-shard-request="${CSS.escape(id)}"]`);
    if (!prompt?.querySelector(".shard-dialog-closed")) return; // the prompt does not say it
    (this.node.closest(".jp-OutputArea-child") ?? this.node).classList.add("shard-folded-away");
  }

  protected override onBeforeDetach(): void {
    this.stopTicking();
  }

  override dispose(): void {
    this.stopTicking();
    super.dispose();
  }

  /** A running call's card says for how long ("running · 0:12") while its kernel is live; a
   * saved one whose result never came says so instead of counting forever. */
  private tick(): void {
    this.stopTicking();
    const running = runningSince(this.model?.data[RENDER_MIME]);
    const status = this.node.querySelector<HTMLElement>(".shard-tool-status");
    if (!running || !status || !this.isAttached) return;
    const live = kernelAgents.panelOf(this.node)?.sessionContext.session?.kernel;
    if (!live) {
      status.textContent = "no result was recorded";
      return;
    }
    const show = (): void => {
      status.textContent = `running · ${formatElapsed(Date.now() / 1000 - running.since)}`;
    };
    show();
    this.ticker = setInterval(show, 1000);
  }

  private stopTicking(): void {
    if (this.ticker !== null) clearInterval(this.ticker);
    this.ticker = null;
  }

  /** A snapshot beside a widget that still lives in the kernel: show the live widget. */
  private async preferLiveWidget(): Promise<void> {
    const view = this.model?.data[WIDGET_VIEW_MIME];
    const modelId = isRecord(view) && isString(view["model_id"]) ? view["model_id"] : "";
    const panel = modelId ? kernelAgents.panelOf(this.node) : null;
    const kernel = panel?.sessionContext.session?.kernel;
    if (!panel || !kernel || !this.model) return;
    try {
      const reply = await kernel.requestCommInfo({ target_name: "jupyter.widget" });
      const comms = reply.content.status === "ok" ? reply.content.comms : {};
      if (!(modelId in comms)) return;
      const renderer = panel.content.rendermime.createRenderer(WIDGET_VIEW_MIME);
      await renderer.renderModel(this.model);
      this.node.replaceChildren();
      Widget.attach(renderer, this.node);
      this.disposed.connect(() => renderer.dispose());
    } catch {
      // no widget manager or no kernel: the snapshot stays
    }
  }
}

class PermissionOutput extends Widget implements IRenderMime.IRenderer {
  private dialog: PermissionDialogView | null = null;
  private saved: PermissionResolvedEvent | null = null;
  private cleanup: (() => void) | null = null;

  constructor() {
    super();
    this.addClass("shard-mime-output");
    this.node.dataset["mimeType"] = PERMISSION_MIME;
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const request = model.data[PERMISSION_MIME];
    if (!isRecord(request) || !isString(request["request_id"])) {
      this.node.replaceChildren(h("div", null, "(malformed Shard permission prompt)"));
      return;
    }
    this.node.dataset["shardRequest"] = request["request_id"];
    // an update_display_data renders into this same widget: drop the old dialog's subscriptions
    this.cleanup?.();
    this.cleanup = null;
    this.dialog = this.makeDialog(request as unknown as PermissionRequestEvent);
    this.node.replaceChildren(h("div", { class: "shard-widget" }, this.dialog.el));
    // the kernel writes the answer into the prompt's own output: a saved notebook shows it
    const saved = request["resolution"];
    this.saved =
      isRecord(saved) && saved["type"] === "permission_resolved"
        ? (saved as unknown as PermissionResolvedEvent)
        : null;
    if (this.saved) return this.showSaved();
    if (this.isAttached) this.follow();
  }

  /** The decision the kernel wrote into this output ("by you" when this tab gave it). */
  private showSaved(): void {
    if (!this.dialog || !this.saved) return;
    // this tab's id, kernel or not: "by you" when this tab answered (it survives a reload)
    this.dialog.setResolved(this.saved, false, tabClientId());
  }

  private makeDialog(request: PermissionRequestEvent): PermissionDialogView {
    const dialog = new PermissionDialogView(request, (a) => this.answer(a));
    dialog.onFold = (hadFocus) => {
      promptFocus.close(dialog, hadFocus);
      this.foldEchoes(request.request_id);
    };
    return dialog;
  }

  /** The decision lines below that this prompt, now folded, says too: shown once. Either one
   * may render first (the kernel sends the prompt's update and the line one after the other). */
  private foldEchoes(requestId: string): void {
    const area = this.node.closest(".jp-OutputArea");
    for (const echo of area?.querySelectorAll(`[data-shard-echo="${CSS.escape(requestId)}"]`) ?? [])
      (echo.closest(".jp-OutputArea-child") ?? echo).classList.add("shard-folded-away");
  }

  protected override onAfterAttach(): void {
    if (this.saved) return this.showSaved();
    this.follow();
  }

  protected override onBeforeDetach(): void {
    this.cleanup?.();
    this.cleanup = null;
  }

  /** Tracks the request in the notebook kernel's agent: open, answered (by whom), or gone. */
  private follow(): void {
    const dialog = this.dialog;
    if (!dialog || this.cleanup || !dialog.isOpen) return;
    const agent = kernelAgents.forNode(this.node);
    if (agent === null) {
      dialog.setUnavailable(NO_KERNEL);
      this.waitForKernel(dialog);
      return;
    }
    const id = dialog.request.request_id;
    const update = (): void => {
      const resolved = agent.store.get("events") as readonly Record<string, unknown>[];
      const found = resolved.find(
        (e) => e["type"] === "permission_resolved" && e["request_id"] === id,
      );
      if (found)
        return dialog.setResolved(
          found as unknown as PermissionResolvedEvent,
          false,
          agent.clientId,
        );
      const pending = agent.store.get("pending") as readonly Record<string, unknown>[];
      const waiting = pending.some((p) => p["request_id"] === id);
      if (agent.store.lastSeq >= 0 && !waiting) dialog.setResolved(null, false);
      else if (waiting && !offered) {
        offered = true; // the agent says it waits: the prompt asks for the focus once
        promptFocus.offer(dialog);
      }
    };
    let offered = false;
    const onReply = (message: unknown): void => {
      if (
        isRecord(message) &&
        message["ok"] === false &&
        message["command"] === "permission_response"
      )
        dialog.setError(
          isString(message["message"]) ? message["message"] : "The answer was not accepted.",
        );
    };
    agent.store.on("change:events", update);
    agent.store.on("change:pending", update);
    agent.store.on("msg:custom", onReply);
    this.cleanup = () => {
      agent.store.off("change:events", update);
      agent.store.off("change:pending", update);
      agent.store.off("msg:custom", onReply);
    };
    update();
  }

  /** A notebook whose kernel is still starting (a reload): follow once it is there. */
  private waitForKernel(dialog: PermissionDialogView): void {
    const session = kernelAgents.panelOf(this.node)?.sessionContext;
    if (!session) return;
    const retry = (): void => {
      if (this.isDisposed || this.dialog !== dialog) return;
      if (kernelAgents.forNode(this.node) === null) return;
      this.renderAgain(dialog);
    };
    session.kernelChanged.connect(retry);
    session.statusChanged.connect(retry);
    void session.ready.then(retry);
    this.cleanup = () => {
      session.kernelChanged.disconnect(retry);
      session.statusChanged.disconnect(retry);
    };
  }

  /** A fresh dialog for the same request (the unavailable one has lost its buttons). */
  private renderAgain(dialog: PermissionDialogView): void {
    this.cleanup?.();
    this.cleanup = null;
    this.dialog = this.makeDialog(dialog.request);
    this.node.replaceChildren(h("div", { class: "shard-widget" }, this.dialog.el));
    this.follow();
  }

  private answer(answer: PermissionAnswer): void {
    const agent = kernelAgents.forNode(this.node);
    if (agent === null) return this.dialog?.setUnavailable("The Shard kernel is not running.");
    agent.command(commands.permissionResponse(agent.store, answer));
  }
}

const extensions: IRenderMime.IExtension[] = [
  {
    id: "shard-jupyterlab:render",
    rendererFactory: {
      safe: true,
      mimeTypes: [RENDER_MIME],
      createRenderer: () => new RenderOutput(),
    },
    rank: RANK,
    dataType: "json",
  },
  {
    id: "shard-jupyterlab:permission",
    rendererFactory: {
      safe: true,
      mimeTypes: [PERMISSION_MIME],
      createRenderer: () => new PermissionOutput(),
    },
    rank: RANK,
    dataType: "json",
  },
];

export default extensions;
