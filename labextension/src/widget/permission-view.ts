// The standalone PermissionDialog widget view: one request (`request` trait), closed when the
// host sets `resolved`.
import { PermissionDialogView } from "../render/dialogs/permission-dialog";
import { h } from "../render/dom";
import type { PermissionRequestEvent, PermissionResolvedEvent } from "../wire";
import { permissionResponse } from "./commands";
import { listen, type Cleanup, type RenderProps } from "./model";
import { asReply } from "./replies";
import { isEventLike } from "./transcript-items";

export function renderPermissionView({ model, el }: RenderProps): Cleanup {
  let view: PermissionDialogView | null = null;
  const sent = new Set<string>();

  const resolved = (): PermissionResolvedEvent | null => {
    const value = model.get("resolved");
    return isEventLike(value) && value.type === "permission_resolved" ? value : null;
  };
  const rebuild = (): void => {
    const request = model.get("request");
    if (!isEventLike(request) || request.type !== "permission_request") {
      view = null;
      el.replaceChildren(h("div", { class: "shard-widget shard-empty" }, "No permission request."));
      return;
    }
    view = new PermissionDialogView(request as PermissionRequestEvent, (answer) => {
      const command = permissionResponse(model, answer);
      sent.add(command.id);
      model.send(command);
    });
    view.setResolved(resolved(), true);
    el.replaceChildren(h("div", { class: "shard-widget" }, view.el));
  };
  const onCustom = (message: unknown): void => {
    const reply = asReply(message);
    if (reply && !reply.ok && (reply.command_id === null || sent.has(reply.command_id))) {
      view?.setError(reply.message || "The answer was not accepted.");
    }
  };

  rebuild();
  const cleanups = [
    listen(model, "change:request", rebuild),
    listen(model, "change:resolved", () => view?.setResolved(resolved(), resolved() === null)),
    listen(model, "msg:custom", onCustom),
  ];
  return () => {
    for (const cleanup of cleanups) cleanup();
    el.replaceChildren();
  };
}
