// The AgentWidget view: header, transcript, usage line, steering box. State comes from the
// model's traits; answers and controls go back as protocol commands via model.send.
import { button, clear, h } from "../render/dom";
import { PermissionDialogView, type PermissionAnswer } from "../render/dialogs/permission-dialog";
import { UiDialogView, type UiAnswer } from "../render/dialogs/ui-dialog";
import type { PermissionRequestEvent, UiRequestEvent } from "../wire";
import {
  currentActivity,
  isBusy,
  renderDiagnostics,
  renderHeader,
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
import { asReply } from "./replies";
import { renderSteerBox } from "./steer-box";
import { deriveItems, isEventLike, type Item, type Pending } from "./transcript-items";
import { renderUsage } from "./usage-line";

type Dialog = PermissionDialogView | UiDialogView;
const STICK_TO_BOTTOM_PX = 40;

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
  readonly steerBox?: boolean;
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
  const usage = h("div", { class: "shard-usage-slot" });
  const notice = h("div", { class: "shard-command-notice", attrs: { role: "alert" } });
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

  const renderItem = (item: Item): HTMLElement => {
    switch (item.kind) {
      case "permission": {
        const view = dialogs.get(item.key) ?? new PermissionDialogView(item.request, onPermission);
        dialogs.set(item.key, view);
        (view as PermissionDialogView).setResolved(
          item.resolved,
          item.open,
          commands.clientId(model),
        );
        return view.el;
      }
      case "ui": {
        const view = dialogs.get(item.key) ?? new UiDialogView(item.request, onUi);
        dialogs.set(item.key, view);
        (view as UiDialogView).setResolved(item.resolved, item.open);
        return view.el;
      }
      default:
        return renderPlainItem(item, commands.clientId(model));
    }
  };
  const list = new KeyedList<Item>(transcript, renderItem);
  let activity: Activity | null = null;

  const refreshTranscript = (): void => {
    const atBottom =
      transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < STICK_TO_BOTTOM_PX;
    const events = getList(model, "events");
    list.update(deriveItems(events, readPending(model)));
    if (atBottom) transcript.scrollTop = transcript.scrollHeight;
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
    };
    const row = renderHeader(state, {
      abort: () => send(commands.abort()),
      setMode: (mode) => send(commands.setMode(mode)),
    });
    const notes = renderDiagnostics(state.diagnostics);
    header.replaceChildren(...(notes ? [row, notes] : [row]));
  };
  const refreshUsage = (): void => usage.replaceChildren(renderUsage(model.get("usage")));
  const showError = (message: string): void => {
    clear(notice);
    notice.append(
      h("span", null, message),
      button("Dismiss", () => clear(notice), "shard-button-small"),
    );
  };
  const onCustom = (message: unknown): void => {
    const reply = asReply(message);
    if (!reply || reply.ok) return;
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
      transcript,
      usage,
      options.steerBox === false ? null : renderSteerBox((text) => send(commands.steer(text))),
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
    ].map((e) => listen(model, e, refreshHeader)),
    listen(model, "change:usage", refreshUsage),
    listen(model, "msg:custom", onCustom),
  ];
  return () => {
    for (const cleanup of cleanups) cleanup();
    el.replaceChildren();
  };
}
