// Model-level (once per widget model, not per view): applies the Python side's incremental
// `append` / `delta` messages to the local `events` value, which every view then re-renders.
import { applyOp, asTranscriptOp } from "./transcript-ops";
import { getList, listen, type Cleanup, type WidgetModel } from "./model";

export function syncTranscript(model: WidgetModel): Cleanup {
  return listen(model, "msg:custom", (message: unknown) => {
    const op = asTranscriptOp(message);
    if (!op) return;
    const next = applyOp(getList(model, "events"), op);
    if (next) model.set("events", next);
  });
}
