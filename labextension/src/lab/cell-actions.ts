// Cell actions in any notebook (JupyterLab and Notebook 7): "Fix with Shard" on a cell with an
// error (a button under its traceback and the cell's context menu), "Explain with Shard" on an
// output, "Ask Shard…" and "Generate with Shard…" (Ctrl+G, or Generate in the notebook's toolbar)
// on a cell. Each sends the cell
// (cell-context.ts) as a prompt to the notebook's own agent when `%shard` made one in its
// kernel, else to the agent of the notebook's folder (made on first use), and opens that agent's
// chat, where the answer and its proposed change to the cell (a `cell_edit` descriptor,
// cell-edits.ts) arrive.
import type { JupyterFrontEnd } from "@jupyterlab/application";
import { InputDialog, Notification } from "@jupyterlab/apputils";
import { PageConfig } from "@jupyterlab/coreutils";
import type { IDocumentManager } from "@jupyterlab/docmanager";
import type { INotebookTracker, NotebookPanel } from "@jupyterlab/notebook";
import { button, h } from "../render/dom";
import { isRecord, isString } from "../render/guards";
import { setCellEditHost } from "../render/descriptors/cell-edit";
import * as commands from "../widget/commands";
import type { AgentInfo, PromptCommand } from "../wire";
import type { AgentDirectory } from "./agent-directory";
import type { AgentChat } from "./chat-widget";
import { type CellAction, cellPrompt, folderOf, pathForAgent, underRoot } from "./cell-context";
import { LabCellEdits } from "./cell-edits";
import { SHARD_KERNEL } from "./kernel-agents";
import { setMentionNotebooks } from "./var-mentions";
import { plainToolbarButton } from "./toolbar-button";

export const CELL_COMMANDS = {
  fix: "shard:fix-cell",
  explain: "shard:explain-output",
  ask: "shard:ask-cell",
  generate: "shard:generate-cell",
} as const;

const BAR = "shard-cell-action-bar";
const ATTACH_WAIT_MS = 120_000;
const KERNEL_ASK_MS = 3_000;
// Only when the `%shard` magics were loaded (they import shard_kernel.cell_agent): a notebook
// that never used Shard runs no Shard code for this.
const AGENT_EXPRESSION =
  "__import__('sys').modules['shard_kernel.cell_agent'].notebook_agent_id() " +
  "if 'shard_kernel.cell_agent' in __import__('sys').modules else None";

export interface CellActionDeps {
  readonly tracker: INotebookTracker;
  readonly directory: AgentDirectory;
  readonly docManager: IDocumentManager | null;
  readonly openChat: (agent: AgentInfo) => AgentChat;
}

interface Target {
  readonly panel: NotebookPanel;
  readonly cell: NotebookPanel["content"]["widgets"][number];
  readonly output?: number;
}

type CellJson = Readonly<Record<string, unknown>>;

function outputsOf(json: CellJson): unknown[] {
  return Array.isArray(json["outputs"]) ? json["outputs"] : [];
}

function hasError(json: CellJson): boolean {
  return outputsOf(json).some((o) => isRecord(o) && o["output_type"] === "error");
}

export function installCellActions(app: JupyterFrontEnd, deps: CellActionDeps): void {
  const { tracker, directory } = deps;
  const root = PageConfig.getOption("serverRoot") || "";
  /** the chat each notebook's last request went to: it hears of Accept / Reject */
  const chatFor = new Map<string, AgentChat>();
  setMentionNotebooks(tracker);
  setCellEditHost(
    new LabCellEdits(tracker, deps.docManager, (d, decision) => {
      const path = underRoot(root, d.file);
      const chat = path !== null ? chatFor.get(path) : undefined;
      if (chat && !chat.isDisposed)
        chat.store.send(
          commands.inject(
            `The person ${decision} your proposed change to cell ${d.cell_id} of ${d.path}.`,
            "note",
            "cell edit",
          ),
        );
    }),
  );

  const targetOf = (args: Readonly<Record<string, unknown>>): Target | null => {
    const path = isString(args["path"]) ? args["path"] : null;
    const cellId = isString(args["cellId"]) ? args["cellId"] : null;
    if (path !== null && cellId !== null) {
      const panel = tracker.find((p) => p.context.path === path);
      const cell = panel?.content.widgets.find((c) => c.model.id === cellId);
      return panel && cell ? { panel, cell } : null;
    }
    const node = app.contextMenuHitTest((n) => n.classList.contains("jp-Cell"));
    if (node) {
      const panel = tracker.find((p) => p.content.node.contains(node));
      const cell = panel?.content.widgets.find((c) => c.node === node);
      if (!panel || !cell) return null;
      const hit = app.contextMenuHitTest((n) => n.classList.contains("jp-OutputArea-child"));
      const index = hit?.parentElement ? [...hit.parentElement.children].indexOf(hit) : -1;
      return index >= 0 ? { panel, cell, output: index } : { panel, cell };
    }
    const panel = tracker.currentWidget;
    const cell = panel?.content.activeCell;
    return panel && cell ? { panel, cell } : null;
  };

  /** The gateway agent `%shard` made in this notebook's kernel, if any (asked, not waited on). */
  const percentShardAgent = async (panel: NotebookPanel): Promise<string | null> => {
    const kernel = panel.sessionContext.session?.kernel;
    if (!kernel || kernel.name === SHARD_KERNEL || kernel.status === "dead") return null;
    const future = kernel.requestExecute(
      {
        code: "",
        silent: true,
        store_history: false,
        allow_stdin: false,
        user_expressions: { shard: AGENT_EXPRESSION },
      },
      true,
    );
    const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), KERNEL_ASK_MS));
    const reply = await Promise.race([future.done.catch(() => null), timeout]);
    const value = reply?.content.status === "ok" ? reply.content.user_expressions["shard"] : null;
    const data = isRecord(value) && isRecord(value["data"]) ? value["data"]["text/plain"] : null;
    const found = isString(data) ? /^'(agent-[A-Za-z0-9_-]+)'$/.exec(data) : null;
    return found?.[1] ?? null;
  };

  const agentFor = async (panel: NotebookPanel): Promise<AgentInfo> => {
    const own = await percentShardAgent(panel);
    await directory.refresh();
    const mine = own !== null ? directory.find(own) : undefined;
    if (mine) return mine;
    const folder = folderOf(root, panel.context.path);
    const candidates = directory.list.filter(
      (a) => a.cwd === folder && !a.parent_agent_id && a.runtime_state !== "failed",
    );
    const found =
      candidates.find((a) => !a.notebook && a.runtime_state === "running") ??
      candidates.find((a) => !a.notebook) ??
      candidates[0];
    if (found) return found;
    const made = await directory.api.create({ cwd: folder, headless_policy: "deny" });
    await directory.refresh();
    return made;
  };

  const attached = async (chat: AgentChat): Promise<boolean> => {
    const deadline = Date.now() + ATTACH_WAIT_MS;
    while (!chat.attached) {
      if (chat.isDisposed || Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return true;
  };

  const send = async (action: CellAction, target: Target, question?: string): Promise<void> => {
    const { panel, cell } = target;
    const agent = await agentFor(panel);
    const chat = deps.openChat(agent);
    if (!(await attached(chat))) throw new Error(`could not attach to ${agent.name}`);
    const json = cell.model.toJSON() as unknown as CellJson;
    const language = panel.model?.getMetadata("language_info");
    const prompt = cellPrompt({
      action,
      notebook: pathForAgent(root, panel.context.path, agent.cwd),
      cellId: cell.model.id,
      cellType: cell.model.type,
      source: cell.model.sharedModel.getSource(),
      outputs: outputsOf(json),
      executionCount: typeof json["execution_count"] === "number" ? json["execution_count"] : null,
      language: isRecord(language) && isString(language["name"]) ? language["name"] : "python",
      ...(question !== undefined ? { question } : {}),
      ...(target.output !== undefined ? { output: target.output } : {}),
    });
    const message: PromptCommand = {
      type: "prompt",
      id: commands.nextCommandId(),
      text: prompt.text,
      images: prompt.images,
    };
    const onReply = (reply: unknown): void => {
      if (!isRecord(reply) || reply["command_id"] !== message.id) return;
      chat.store.off("msg:custom", onReply);
      if (reply["ok"] !== true)
        Notification.error(`Shard could not start on that cell: ${String(reply["message"] ?? "")}`);
    };
    chat.store.on("msg:custom", onReply);
    chatFor.set(panel.context.path, chat);
    chat.store.send(message);
  };

  const run = (action: CellAction, question?: string) => async (args: unknown) => {
    const target = targetOf(isRecord(args) ? args : {});
    if (target === null) return;
    try {
      await send(action, target, question);
    } catch (error) {
      Notification.error(`Shard: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  const notShard = (args: Readonly<Record<string, unknown>>): Target | null => {
    const target = targetOf(args);
    const kernel = target?.panel.sessionContext.session?.kernel?.name;
    return target && kernel !== SHARD_KERNEL ? target : null;
  };

  app.commands.addCommand(CELL_COMMANDS.fix, {
    label: "Fix with Shard",
    caption: "Send this cell and its error to the agent; its fix comes back as a diff to accept",
    isVisible: (args) => {
      const target = notShard(args);
      return target !== null && hasError(target.cell.model.toJSON() as unknown as CellJson);
    },
    execute: run("fix"),
  });
  app.commands.addCommand(CELL_COMMANDS.explain, {
    label: "Explain with Shard",
    caption: "Ask the agent to explain this cell's output",
    isVisible: (args) => notShard(args) !== null,
    execute: run("explain"),
  });
  app.commands.addCommand(CELL_COMMANDS.ask, {
    label: "Ask Shard…",
    caption: "Ask the agent about this cell; a change comes back as a diff to accept",
    isVisible: (args) => notShard(args) !== null,
    execute: async (args) => {
      const target = targetOf(args);
      if (target === null) return;
      const answer = await InputDialog.getText({
        title: "Ask Shard about this cell",
        placeholder: "e.g. make this plot use a log scale",
      });
      const question = answer.value?.trim();
      if (!answer.button.accept || !question) return;
      await run("ask", question)(args);
    },
  });
  app.commands.addCommand(CELL_COMMANDS.generate, {
    label: "Generate with Shard…",
    caption: "Describe the code this cell should hold; it comes back as a diff to accept (Ctrl+G)",
    isVisible: (args) => notShard(args) !== null,
    execute: async (args) => {
      const target = targetOf(args);
      if (target === null) return;
      const answer = await InputDialog.getText({
        title: "Generate this cell with Shard",
        placeholder: "e.g. load data.csv and plot the temperature by month",
      });
      const instruction = answer.value?.trim();
      if (!answer.button.accept || !instruction) return;
      await run("generate", instruction)(args);
    },
  });
  // in a cell's editor too: Lab's own shortcut handling runs before CodeMirror's keymap
  app.commands.addKeyBinding({
    command: CELL_COMMANDS.generate,
    keys: ["Accel G"],
    selector: ".jp-Notebook .jp-Cell",
  });
  const cells = ".jp-Notebook .jp-Cell";
  app.contextMenu.addItem({ command: CELL_COMMANDS.fix, selector: cells, rank: 41 });
  app.contextMenu.addItem({
    command: CELL_COMMANDS.explain,
    selector: ".jp-Notebook .jp-OutputArea-output",
    rank: 42,
  });
  app.contextMenu.addItem({ command: CELL_COMMANDS.ask, selector: cells, rank: 43 });
  app.contextMenu.addItem({ command: CELL_COMMANDS.generate, selector: cells, rank: 44 });

  tracker.widgetAdded.connect((_, panel) => {
    watchErrors(app, panel);
    addGenerateButton(app, panel);
  });
}

/** "Generate" in a notebook's toolbar: Ctrl+G on the active cell (not in Shard notebooks,
 * whose cells are prompts already). */
function addGenerateButton(app: JupyterFrontEnd, panel: NotebookPanel): void {
  const generate = plainToolbarButton({
    className: "shard-generate-button",
    label: "Generate",
    tooltip:
      "Generate the active cell's code with Shard (Ctrl+G): it comes back as a diff to accept",
    onClick: () => {
      const cell = panel.content.activeCell;
      if (cell === null) return;
      const args = { path: panel.context.path, cellId: cell.model.id };
      void app.commands.execute(CELL_COMMANDS.generate, args);
    },
  });
  if (!panel.toolbar.insertAfter("cellType", "shardGenerate", generate))
    panel.toolbar.addItem("shardGenerate", generate);
  const update = (): void => {
    const kernel = panel.sessionContext.session?.kernel;
    const name = kernel?.name ?? panel.sessionContext.kernelPreference.name;
    generate.setHidden(name === SHARD_KERNEL);
  };
  panel.sessionContext.kernelChanged.connect(update);
  void panel.sessionContext.ready.then(update, () => undefined);
  update();
}

/** Keeps a "Fix with Shard" / "Explain" bar under each cell whose outputs hold an error. */
function watchErrors(app: JupyterFrontEnd, panel: NotebookPanel): void {
  let pending: ReturnType<typeof setTimeout> | null = null;
  const watched = new WeakSet<object>();
  const update = (): void => {
    pending = null;
    if (panel.isDisposed) return;
    const shard = panel.sessionContext.session?.kernel?.name === SHARD_KERNEL;
    for (const cell of panel.content.widgets) {
      const outputs = (cell.model as { outputs?: { changed: { connect(f: () => void): void } } })
        .outputs;
      if (outputs && !watched.has(outputs)) {
        watched.add(outputs);
        outputs.changed.connect(schedule);
      }
      const bar = cell.node.querySelector(`:scope > .${BAR}`);
      const wanted = !shard && hasError(cell.model.toJSON() as unknown as CellJson);
      if (!wanted) bar?.remove();
      else if (bar === null)
        cell.node.appendChild(actionBar(app, panel.context.path, cell.model.id));
    }
  };
  const schedule = (): void => {
    if (pending === null) pending = setTimeout(update, 100);
  };
  panel.content.modelChanged.connect(schedule);
  panel.context.ready.then(
    () => {
      panel.content.model?.cells.changed.connect(schedule);
      schedule();
    },
    () => undefined,
  );
  panel.sessionContext.kernelChanged.connect(schedule);
}

function actionBar(app: JupyterFrontEnd, path: string, cellId: string): HTMLElement {
  const run = (command: string) => (): void => void app.commands.execute(command, { path, cellId });
  return h(
    "div",
    { class: `shard-widget ${BAR}` },
    button("Fix with Shard", run(CELL_COMMANDS.fix), "shard-fix-cell shard-button-primary"),
    button("Explain", run(CELL_COMMANDS.explain), "shard-explain-cell"),
  );
}
