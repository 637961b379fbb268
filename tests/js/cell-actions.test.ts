// Cell actions: what a cell sends the agent (cell-context.ts), the browser's line diff, and the
// cell_edit renderer's Accept / Reject with a host that applies, refuses or re-diffs.
import { describe, expect, it } from "vitest";
import {
  cellPrompt,
  describeOutput,
  folderOf,
  MAX_IMAGE_BYTES,
  pathForAgent,
  underRoot,
} from "../../labextension/src/lab/cell-context";
import {
  ComposerImages,
  refusal,
} from "../../labextension/src/widget/composer-images";
import {
  cellMentions,
  fileMentions,
  hasContextMentions,
  insideFolder,
  mentionOptions,
  outputMentions,
} from "../../labextension/src/lab/mentions";
import { diffLines } from "../../labextension/src/render/line-diff";
import {
  type AcceptOutcome,
  type CellEditHost,
  setCellEditHost,
} from "../../labextension/src/render/descriptors/cell-edit";
import { renderDescriptor } from "../../labextension/src/render/index";
import type { CellEditDescriptor } from "../../labextension/src/wire";
import {
  SUMMARISER,
  summaryExpression,
  varMentions,
} from "../../labextension/src/lab/var-mentions";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAHnOcQAAAAABJRU5ErkJggg==";

const request = {
  action: "fix" as const,
  notebook: "sub/a.ipynb",
  cellId: "c1",
  cellType: "code",
  source: "x = 1 / 0",
  executionCount: 3,
  language: "python",
};

describe("cell prompt", () => {
  it("sends the source, the traceback without colour codes and the ask", () => {
    const prompt = cellPrompt({
      ...request,
      outputs: [
        {
          output_type: "error",
          ename: "ZeroDivisionError",
          evalue: "division by zero",
          traceback: [
            "\u001b[0;31mZeroDivisionError\u001b[0m: division by zero",
          ],
        },
      ],
    });
    expect(prompt.images).toEqual([]);
    expect(prompt.text).toBe(
      "Fix the error in this cell of sub/a.ipynb. Say briefly what was wrong, then propose the " +
        'change with propose_cell_edit (path "sub/a.ipynb", cell_id "c1"): the person sees it ' +
        "as a diff on the cell and accepts or rejects it, so do not edit the notebook yourself." +
        '\n\n<cell notebook="sub/a.ipynb" id="c1" type="code" language="python" ' +
        'execution_count="3">\nx = 1 / 0\n</cell>\n<output n="1" type="error">\n' +
        "ZeroDivisionError: division by zero\n</output>",
    );
  });

  it("sends images as image blocks and a table's head as text", () => {
    const rows = Array.from({ length: 40 }, (_, i) => `${i}  ${i * 2}`).join(
      "\n",
    );
    const prompt = cellPrompt({
      ...request,
      action: "explain",
      output: 1,
      outputs: [
        {
          output_type: "display_data",
          data: { "image/png": `${PNG}\n`, "text/plain": "<Figure>" },
        },
        {
          output_type: "execute_result",
          data: { "text/html": "<table>…</table>", "text/plain": rows },
        },
        { output_type: "stream", name: "stdout", text: ["a\n", "b\n"] },
      ],
    });
    expect(prompt.images).toEqual([
      { type: "image", media_type: "image/png", data: PNG },
    ]);
    expect(prompt.text).toContain(
      "Explain this cell's output 2 in sub/a.ipynb.",
    );
    expect(prompt.text).toContain(
      '<output n="1" type="display_data">\n(an image/png image, attached)\n</output>',
    );
    expect(prompt.text).toContain("[a table; its head]\n0  0\n");
    expect(prompt.text).toContain("24  48\n… (15 more rows)");
    expect(prompt.text).not.toContain("25  50");
    expect(prompt.text).toContain(
      '<output n="3" type="stream">\n[stdout]\na\nb\n\n</output>',
    );
  });

  it("leaves out an image over the size limit and says why", () => {
    const big = "A".repeat(Math.ceil((MAX_IMAGE_BYTES * 4) / 3) + 8);
    const [text, image] = describeOutput({
      output_type: "display_data",
      data: { "image/png": big },
    });
    expect(image).toBeNull();
    expect(text).toMatch(
      /^\(a 3\.8 MB image\/png image was left out: over the 3\.75 MB an image may be\)/,
    );
  });

  it("asks for the code a cell should hold (Ctrl+G)", () => {
    const prompt = cellPrompt({
      ...request,
      action: "generate",
      question: "plot it",
      outputs: [],
    });
    expect(
      prompt.text.startsWith(
        "Write the code for this cell of sub/a.ipynb: plot it. Propose the whole new cell source",
      ),
    ).toBe(true);
  });

  it("asks the person's question, and names paths as the agent sees them", () => {
    const prompt = cellPrompt({
      ...request,
      action: "ask",
      question: "Use a log scale?",
      outputs: [],
    });
    expect(
      prompt.text.startsWith(
        "Use a log scale?\n\n(About this cell of sub/a.ipynb.",
      ),
    ).toBe(true);
    expect(prompt.text.endsWith("</cell>\n(no outputs)")).toBe(true);
    expect(pathForAgent("/srv/root", "sub/a.ipynb", "/srv/root/sub")).toBe(
      "a.ipynb",
    );
    expect(pathForAgent("/srv/root", "sub/a.ipynb", "/elsewhere")).toBe(
      "/srv/root/sub/a.ipynb",
    );
    expect(folderOf("/srv/root/", "sub/a.ipynb")).toBe("/srv/root/sub");
    expect(folderOf("/srv/root", "a.ipynb")).toBe("/srv/root");
    expect(underRoot("/srv/root", "/srv/root/sub/a.ipynb")).toBe("sub/a.ipynb");
    expect(underRoot("/srv/root", "/srv/rooted/a.ipynb")).toBeNull();
  });
});

describe("line diff", () => {
  it("makes unified hunks with context", () => {
    expect(diffLines("a\nb\nc\n", "a\nB\nc\n")).toEqual([
      {
        old_start: 1,
        old_lines: 3,
        new_start: 1,
        new_lines: 3,
        lines: [" a", "-b", "+B", " c"],
      },
    ]);
    expect(diffLines("same", "same")).toEqual([]);
    expect(diffLines("", "new")).toEqual([
      {
        old_start: 0,
        old_lines: 0,
        new_start: 1,
        new_lines: 1,
        lines: ["+new"],
      },
    ]);
    const long = Array.from({ length: 20 }, (_, i) => `l${i}`);
    const changed = [...long];
    changed[1] = "X";
    changed[18] = "Y";
    expect(
      diffLines(long.join("\n"), changed.join("\n")).map((h) => h.old_start),
    ).toEqual([1, 16]);
  });
});

function proposal(
  id: string,
  base: string | null = "x = 1 / 0",
): CellEditDescriptor {
  return {
    kind: "cell_edit",
    version: 1,
    proposal_id: id,
    path: "a.ipynb",
    file: "/srv/root/a.ipynb",
    cell_id: "c1",
    cell_type: "code",
    base,
    source: "x = 1 / 1",
    hunks: diffLines(base ?? "", "x = 1 / 1"),
    summary: "divide by one",
  };
}

class FakeHost implements CellEditHost {
  cell = "x = 1 / 0";
  decisions: string[] = [];
  async accept(
    d: CellEditDescriptor,
    expected: string | null,
  ): Promise<AcceptOutcome> {
    if (expected === null || this.cell !== expected)
      return { status: "changed", current: this.cell };
    this.cell = d.source;
    return { status: "applied" };
  }
  decided(_: CellEditDescriptor, decision: "accepted" | "rejected"): void {
    this.decisions.push(decision);
  }
}

const click = async (root: Element, name: string): Promise<void> => {
  const found = [...root.querySelectorAll("button")].find(
    (b) => b.textContent === name,
  );
  if (!found) throw new Error(`no ${name} button`);
  found.click();
  await new Promise((resolve) => setTimeout(resolve, 0));
};

describe("cell_edit renderer", () => {
  it("without a host shows the diff and where to apply it", () => {
    setCellEditHost(null);
    const el = renderDescriptor(proposal("p0"));
    expect(el.className).toBe("shard-render shard-render-cell_edit");
    expect(el.querySelector(".shard-diff-add")?.textContent).toBe("+x = 1 / 1");
    expect(el.querySelectorAll("button")).toHaveLength(0);
    expect(el.textContent).toContain(
      "Open this notebook in JupyterLab to accept or reject",
    );
  });

  it("Accept applies while the cell reads the base, and the decision survives a re-render", async () => {
    const host = new FakeHost();
    setCellEditHost(host);
    const el = renderDescriptor(proposal("p1"));
    await click(el, "Accept");
    expect(host.cell).toBe("x = 1 / 1");
    expect(host.decisions).toEqual(["accepted"]);
    expect(el.querySelector(".shard-cell-edit-state")?.textContent).toContain(
      "Accepted",
    );
    const again = renderDescriptor(proposal("p1"));
    expect(again.querySelectorAll("button")).toHaveLength(0);
    expect(
      again.querySelector(".shard-cell-edit")?.getAttribute("data-state"),
    ).toBe("applied");
  });

  it("a cell changed since is re-diffed and asked again, never overwritten", async () => {
    const host = new FakeHost();
    host.cell = "x = 1 / 0  # mine";
    setCellEditHost(host);
    const el = renderDescriptor(proposal("p2"));
    await click(el, "Accept");
    expect(host.cell).toBe("x = 1 / 0  # mine");
    expect(el.querySelector(".shard-cell-edit-state")?.textContent).toContain(
      "changed since",
    );
    expect(el.querySelector(".shard-diff-del")?.textContent).toBe(
      "-x = 1 / 0  # mine",
    );
    await click(el, "Accept");
    expect(host.cell).toBe("x = 1 / 1");
  });

  it("a base of null (the cell was not saved) is diffed against the cell first", async () => {
    const host = new FakeHost();
    setCellEditHost(host);
    const el = renderDescriptor(proposal("p3", null));
    await click(el, "Accept");
    expect(host.cell).toBe("x = 1 / 0");
    await click(el, "Accept");
    expect(host.cell).toBe("x = 1 / 1");
  });

  it("Reject leaves the cell and tells the host", async () => {
    const host = new FakeHost();
    setCellEditHost(host);
    const el = renderDescriptor(proposal("p4"));
    await click(el, "Reject");
    expect(host.cell).toBe("x = 1 / 0");
    expect(host.decisions).toEqual(["rejected"]);
    expect(el.querySelector(".shard-cell-edit-state")?.textContent).toBe(
      "Rejected: the cell is unchanged.",
    );
    setCellEditHost(null);
  });
});

describe("@var: mentions", () => {
  it("finds each variable once, only as a word of its own", () => {
    expect(
      varMentions(
        "compare @var:df with @var:df2 and (@var:df) x@var:no @var:9bad",
      ),
    ).toEqual(["df", "df2"]);
    expect(varMentions("no mention")).toEqual([]);
  });

  it("summarises in a namespace of its own: the name is a string literal, never code", () => {
    const expression = summaryExpression("df");
    expect(expression.startsWith("(lambda g: (exec(")).toBe(true);
    expect(expression.endsWith(`{'ns': globals(), 'name': "df"})`)).toBe(true);
    expect(expression).toContain(JSON.stringify(SUMMARISER));
  });
});

describe("composer images", () => {
  it("takes raster images under the size and count limits, and says why not", () => {
    expect(refusal("image/png", 1000, 0)).toBeNull();
    expect(refusal("image/svg+xml", 1000, 0)).toBe(
      "image/svg+xml is not an image a model reads (PNG, JPEG, GIF, WebP)",
    );
    expect(refusal("image/jpeg", 5_000_000, 0)).toBe(
      "the image is 5.0 MB: at most 3.75 MB goes with a prompt",
    );
    expect(refusal("image/webp", 10, 8)).toBe(
      "at most 8 images go with one prompt",
    );
  });

  it("a pasted image file becomes an image block and is taken once", async () => {
    const input = document.createElement("textarea");
    const said: string[] = [];
    const images = new ComposerImages(input, (text) => said.push(text));
    const bytes = Uint8Array.from(atob(PNG), (c) => c.charCodeAt(0));
    await images.add([
      new File([bytes], "a.png", { type: "image/png" }),
      new File(["x"], "a.txt", { type: "text/plain" }),
    ]);
    expect(said).toEqual([
      "Image not attached: text/plain is not an image a model reads (PNG, JPEG, GIF, WebP).",
    ]);
    expect(images.el.querySelectorAll("img")).toHaveLength(1);
    expect(images.take()).toEqual([
      { type: "image", media_type: "image/png", data: PNG },
    ]);
    expect(images.take()).toEqual([]);
    expect(images.el.hidden).toBe(true);
  });
});

describe("@output: mentions", () => {
  it("names a cell's outputs, or one of them", () => {
    expect(
      outputMentions(
        "what did @output:3 and @output:cell-1.2 print? @output:3",
      ),
    ).toEqual(["3", "cell-1.2"]);
    expect(outputMentions("mail@output:3")).toEqual([]);
    expect(hasContextMentions("see @output:2")).toBe(true);
  });

  it("is offered when @ is typed, with the other kinds", async () => {
    const sources = {
      tracker: null,
      contents: null as never,
      cwd: "/w",
      root: "/w",
    };
    expect((await mentionOptions("@", sources)).map((o) => o.insert)).toEqual([
      "@file:",
      "@cell:",
      "@output:",
      "@var:",
    ]);
    expect((await mentionOptions("@o", sources)).map((o) => o.insert)).toEqual([
      "@output:",
    ]);
    expect(await mentionOptions("@cell:", sources)).toEqual([]); // no notebook open
  });
});

describe("@cell: and @file: mentions", () => {
  it("finds cells by position or id and files up to the punctuation after them", () => {
    expect(cellMentions("see @cell:3 and @cell:cell-1, not x@cell:2")).toEqual([
      "3",
      "cell-1",
    ]);
    expect(
      fileMentions(
        "does @file:src/a.py match @file:notes.txt? and (@file:b.md).",
      ),
    ).toEqual(["src/a.py", "notes.txt", "b.md"]);
  });

  it("keeps a path inside the agent's folder, as the read tool does", () => {
    expect(insideFolder("/w/p", "src/a.py")).toBe("/w/p/src/a.py");
    expect(insideFolder("/w/p/", "./src/../a.py")).toBe("/w/p/a.py");
    expect(insideFolder("/w/p", "/w/p/a.py")).toBe("/w/p/a.py");
    expect(insideFolder("/w/p", "../q/a.py")).toBeNull();
    expect(insideFolder("/w/p", "/w/pq/a.py")).toBeNull();
    expect(insideFolder("/w/p", "/etc/passwd")).toBeNull();
  });
});
