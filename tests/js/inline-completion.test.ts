// Shard's inline completion provider: off by default, what it sends (the code around the cursor,
// the code cells above), and one request in flight per editor (a newer fetch aborts the older).
import { describe, expect, it } from "vitest";
import { ServerConnection } from "../../labextension/node_modules/@jupyterlab/services";
import type { Widget } from "../../labextension/node_modules/@lumino/widgets";
import {
  cellsAbove,
  completionBody,
  languageOf,
  ShardInlineProvider,
} from "../../labextension/src/lab/inline-completion";

const cell = (type: string, source: string) => ({
  model: { type, sharedModel: { getSource: () => source } },
});

function notebook(id: string, active: number): Widget {
  const widgets = [
    cell("code", "import math"),
    cell("markdown", "# notes"),
    cell("code", ""),
  ];
  widgets.push(cell("code", "x = 1"));
  return {
    id,
    content: { widgets, activeCellIndex: active },
    context: { path: "work/stats.ipynb" },
  } as unknown as Widget;
}

describe("inline completion", () => {
  it("is off until a person enables it, with a short debounce", () => {
    const provider = new ShardInlineProvider(ServerConnection.makeSettings());
    expect(provider.schema.default).toEqual({
      enabled: false,
      debouncerDelay: 120,
      timeout: 15000,
    });
  });

  it("sends the code around the cursor and the code cells above", () => {
    expect(cellsAbove(notebook("nb", 3))).toEqual(["import math"]);
    expect(languageOf("text/x-ipython")).toBe("python");
    expect(languageOf("text/x-rsrc")).toBe("rsrc");
    const request = {
      text: "y = \nprint(y)",
      offset: 4,
      mimeType: "text/x-ipython",
    };
    expect(completionBody(request, notebook("nb", 3))).toEqual({
      prefix: "y = ",
      suffix: "\nprint(y)",
      language: "python",
      path: "work/stats.ipynb",
      cells_above: ["import math"],
    });
    expect(
      completionBody({ text: "  ", offset: 2 }, notebook("nb", 0)),
    ).toBeNull();
  });

  it("aborts the request still in flight when the same editor asks again", async () => {
    const signals: AbortSignal[] = [];
    const answers: ((r: Response) => void)[] = [];
    const settings = ServerConnection.makeSettings({
      baseUrl: "http://127.0.0.1:1/",
      fetch: (request: RequestInfo) => {
        const signal = (request as Request).signal;
        signals.push(signal);
        return new Promise<Response>((resolve, reject) => {
          answers.push(resolve);
          signal.addEventListener("abort", () =>
            reject(new DOMException("aborted", "AbortError")),
          );
        });
      },
    });
    const provider = new ShardInlineProvider(settings);
    const context = { widget: notebook("nb", 3), triggerKind: 1 };
    const first = provider.fetch({ text: "a = ", offset: 4 }, context);
    const second = provider.fetch({ text: "ab = ", offset: 5 }, context);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(signals.map((s) => s.aborted)).toEqual([true, false]);
    answers[1]?.(
      new Response(JSON.stringify({ text: "1", model: "m" }), { status: 200 }),
    );
    expect(await first).toEqual({ items: [] });
    expect(await second).toEqual({ items: [{ insertText: "1" }] });
  });
});
