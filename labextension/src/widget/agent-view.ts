// The AgentWidget view: header, transcript, usage line, composer (prompt when idle, steer while
// a turn runs, with pasted images and `@` mentions). State comes from the model's traits;
// answers and controls go back as protocol commands via model.send.
import { button, clear, h } from "../render/dom";
import { PermissionDialogView, type PermissionAnswer } from "../render/dialogs/permission-dialog";
import { UiDialogView, type UiAnswer } from "../render/dialogs/ui-dialog";
import type { PermissionRequestEvent, UiRequestEvent } from "../wire";
import {
  currentActivity,
  isBusy,
  renderDiagnostics,
  renderGoal,
  renderHeader,
  renderTodos,
  type Activity,
} from "./agent-header";
import * as commands from "./commands";
import { renderPlainItem } from "./item-views";
import { KeyedList } from "./keyed-list";
import {
  getList,
  getString,
  listen,
  type Cleanup,
  type RenderProps,
  type WidgetModel,
} from "./model";
import { promptFocus, TranscriptFollower } from "./follow";
import { asReply, commandsOf } from "./replies";
import { RewindControls } from "./rewind-view";
import { deriveItems, isEventLike, type Item, type Pending } from "./transcript-items";
import { renderUsage } from "./usage-line";
import { renderWidgetComposer } from "./widget-composer";

type Dialog = PermissionDialogView | UiDialogView;

export function readPending(model: WidgetModel): Pending {
  const permissions = getList(model, "pending").filter(
    (e): e is PermissionRequestEvent => isEventLike(e) && e.type === "permission_request",
  );
  const ui = getList(model, "pending_ui").filter(
    (e): e is UiRequestEvent => isEventLike(e) && e.type === "ui_request",
  );
  return { permissions, ui };
}

export interface AgentViewOptions {
  /** false when the host has its own composer (the Lab chat tab) */
  readonly composer?: boolean;
}

export function renderAgentView(
  { model, el }: RenderProps,
  options: AgentViewOptions = {},
): Cleanup {
  const header = h("div", { class: "shard-header-slot" });
  const transcript = h("div", {
    class: "shard-transcript",
    attrs: { role: "log", "aria-live": "polite" },
  });
  const follower = new TranscriptFollower(transcript);
  const transcriptBox = h("div", { class: "shard-transcript-box" }, transcript, follower.pill);
  const usage = h("div", { class: "shard-usage-slot" });
  const notice = h("div", { class: "shard-command-notice", attrs: { role: "alert" } });
  const rewind = new RewindControls(model);
  const dialogs = new Map<string, Dialog>();
  const sentFor = new Map<string, string>(); // command id → dialog key ("" for controls)

  const send = (command: commands.OutgoingCommand, dialogKey = ""): void => {
    sentFor.set(command.id, dialogKey);
    model.send(command);
  };
  const onPermission = (answer: PermissionAnswer): void =>
    send(commands.permissionResponse(model, answer), `perm:${answer.requestId}`);
  const onUi = (answer: UiAnswer): void =>
    send(commands.uiResponse(model, answer), `ui:${answer.requestId}`);

  let opened: Dialog[] = []; // dialogs that opened in this refresh: they ask for the focus
  const offered = new Set<string>();
  const track = <D extends Dialog>(key: string, make: () => D, open: boolean): D => {
    let view = dialogs.get(key) as D | undefined;
    if (view === undefined) {
      const made = make();
      made.onFold = (hadFocus) => promptFocus.close(made, hadFocus);
      dialogs.set(key, made);
      view = made;
    }
    if (open && !offered.has(key)) {
      offered.add(key);
      opened.push(view);
    }
    return view;
  };
  const renderItem = (item: Item): HTMLElement => {
    switch (item.kind) {
      case "permission": {
        const view = track(
          item.key,
          () => new PermissionDialogView(item.request, onPermission),
          item.open && item.resolved === null,
        );
        (view as PermissionDialogView).setResolved(
          item.resolved,
          item.open,
          commands.clientId(model),
        );
        return view.el;
      }
      case "ui": {
        const view = track(
          item.key,
          () => new UiDialogView(item.request, onUi),
          item.open && item.resolved === null,
        );
        (view as UiDialogView).setResolved(item.resolved, item.open);
        return view.el;
      }
      default: {
        const node = renderPlainItem(item, commands.clientId(model));
        if (item.kind === "user" && item.entryId) node.append(rewind.turnActions(item.entryId));
        if (item.rewound) {
          node.classList.add("shard-rewound");
          node.title = "Rewound: not in what the agent's next request carries";
        }
        return node;
      }
    }
  };
  const list = new KeyedList<Item>(transcript, renderItem);
  let activity: Activity | null = null;

  const refreshTranscript = (): void => {
    const events = getList(model, "events");
    opened = [];
    list.update(deriveItems(events, readPending(model)));
    composer?.refreshSteer(events);
    rewind.refresh(events);
    follower.contentChanged();
    for (const [key, dialog] of dialogs) {
      // an answered prompt folded into its tool card: its element left the transcript
      if (offered.has(key) && !dialog.el.isConnected && el.isConnected) {
        offered.delete(key);
        promptFocus.close(dialog, dialog.hasFocus());
      }
    }
    for (const dialog of opened.splice(0)) {
      if (!dialog.el.isConnected) continue;
      follower.reveal(dialog.el);
      promptFocus.offer(dialog);
    }
    const next = currentActivity(events);
    if (next?.label !== activity?.label || next?.since !== activity?.since) {
      activity = next;
      refreshHeader();
    }
  };
  const refreshHeader = (): void => {
    const modes = getList(model, "modes").filter((m): m is string => typeof m === "string");
    const state = {
      status: getString(model, "status"),
      activity,
      model: getString(model, "model"),
      demo: model.get("demo") === true,
      mode: getString(model, "mode"),
      modes,
      diagnostics: getList(model, "diagnostics").filter((d): d is string => typeof d === "string"),
      goal: getString(model, "goal"),
    };
    const todos = renderTodos(getList(model, "todos"));
    const row = renderHeader(state, {
      abort: () => send(commands.abort()),
      setMode: (mode) => send(commands.setMode(mode)),
    });
    const extra = [renderGoal(state.goal), todos, renderDiagnostics(state.diagnostics)];
    header.replaceChildren(row, ...extra.filter((e): e is HTMLElement => e !== null));
  };
  const refreshUsage = (): void => usage.replaceChildren(renderUsage(model.get("usage")));
  const showError = (message: string): void => {
    clear(notice);
    notice.append(
      h("span", null, message),
      button("Dismiss", () => clear(notice), "shard-button-small"),
    );
  };
  const composer = options.composer === false ? null : renderWidgetComposer(model, send, el);
  const onCustom = (message: unknown): void => {
    if (rewind.onReply(message) || composer?.onReply(message)) return;
    const reply = asReply(message);
    if (reply?.command === "list_commands") composer?.composer.setCommands(commandsOf(reply));
    if (!reply || reply.ok) return;
    if (reply.command === "slash" && reply.data["seq"] !== undefined) return; // in the transcript
    const key = reply.command_id !== null ? sentFor.get(reply.command_id) : "";
    if (key === undefined) return; // another view's command
    const dialog = key ? dialogs.get(key) : undefined;
    if (dialog) dialog.setError(reply.message || "The answer was not accepted.");
    else showError(`${reply.command}: ${reply.message}`);
  };

  el.replaceChildren(
    h(
      "div",
      { class: "shard-widget shard-agent" },
      header,
      rewind.bar,
      rewind.panel,
      transcriptBox,
      usage,
      composer?.el ?? null,
      notice,
    ),
  );
  refreshHeader();
  refreshTranscript();
  refreshUsage();
  const ticker = setInterval(() => {
    if (activity !== null && isBusy(getString(model, "status"))) refreshHeader();
  }, 1000);
  const cleanups = [
    () => clearInterval(ticker),
    ...["change:events", "change:pending", "change:pending_ui"].map((e) =>
      listen(model, e, refreshTranscript),
    ),
    ...[
      "change:status",
      "change:mode",
      "change:modes",
      "change:model",
      "change:demo",
      "change:diagnostics",
      "change:goal",
      "change:todos",
    ].map((e) => listen(model, e, refreshHeader)),
    ...(composer ? [listen(model, "change:status", composer.refreshBusy)] : []),
    listen(model, "change:usage", refreshUsage),
    listen(model, "msg:custom", onCustom),
  ];
  return () => {
    for (const cleanup of cleanups) cleanup();
    el.replaceChildren();
    promptFocus.prune();
  };
}
