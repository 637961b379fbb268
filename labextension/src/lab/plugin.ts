// The JupyterLab (and Notebook 7) plugin: the Shard sidebar (agents, New agent), chat tabs,
// palette commands, and the page's identity and notebook tracker for the mime renderers.
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from "@jupyterlab/application";
import { Dialog, ICommandPalette, showDialog } from "@jupyterlab/apputils";
import { ICompletionProviderManager } from "@jupyterlab/completer";
import { PageConfig } from "@jupyterlab/coreutils";
import { IDocumentManager } from "@jupyterlab/docmanager";
import { FileDialog } from "@jupyterlab/filebrowser";
import { INotebookTracker, type NotebookPanel } from "@jupyterlab/notebook";
import { LabIcon } from "@jupyterlab/ui-components";
import { clientLabel } from "../client/identity";
import { OPEN_TERMINAL_EVENT } from "../render/descriptors/terminal";
import { isRecord } from "../render/guards";
import * as commands from "../widget/commands";
import type { AgentInfo } from "../wire";
import { AgentDirectory } from "./agent-directory";
import { AgentsPanel } from "./agents-panel";
import { AgentChat } from "./chat-widget";
import { installCellActions } from "./cell-actions";
import { offerWidgetCells } from "./widget-cells";
import { diskSyncPlugin } from "./disk-sync";
import { ShardInlineProvider } from "./inline-completion";
import { kernelAgents, SHARD_KERNEL } from "./kernel-agents";
import { addLiveStrip } from "./notebook-live";
import { OUTPUT_SELECTOR, outputInjection } from "./send-output";
import { plainToolbarButton } from "./toolbar-button";

const CATEGORY = "Shard";
const COMMANDS = {
  newAgent: "shard:new-agent",
  openAgent: "shard:open-agent",
  dashboard: "shard:dashboard",
  stopAgent: "shard:stop-agent",
  sendOutput: "shard:send-output",
} as const;

const shardIcon = new LabIcon({
  name: "shard:icon",
  svgstr:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path class="jp-icon3" fill="#616161" d="M12 2 3 8l3 12h12l3-12-9-6zm0 2.5 6.6 4.4L16.4 18H7.6L5.4 8.9 12 4.5zM12 7l-4 3 1.5 6h5L16 10l-4-3z"/></svg>',
});

async function userName(app: JupyterFrontEnd): Promise<string> {
  const user = app.serviceManager.user;
  try {
    await user.ready;
    return user.identity?.display_name || user.identity?.name || "";
  } catch {
    return "";
  }
}

function activate(
  app: JupyterFrontEnd,
  tracker: INotebookTracker | null,
  palette: ICommandPalette | null,
  docManager: IDocumentManager | null,
): void {
  let label = clientLabel("");
  kernelAgents.configure(tracker, label);
  const directory = new AgentDirectory();
  const chats = new Map<string, AgentChat>();
  void userName(app).then((name) => {
    label = clientLabel(name);
    kernelAgents.configure(tracker, label);
  });

  let recentChat: AgentChat | null = null;
  const openChat = (agent: AgentInfo): AgentChat => {
    let chat = chats.get(agent.id);
    if (chat === undefined || chat.isDisposed) {
      // Notebook 7's main area holds the one document: the chat goes beside it, in a side
      // panel that shows no tab, so the chat says whose it is itself
      const inLab = app.name === "JupyterLab";
      chat = new AgentChat(agent.id, directory, app.serviceManager, label, { heading: !inLab });
      chat.title.icon = shardIcon;
      chats.set(agent.id, chat);
      chat.disposed.connect(() => chats.delete(agent.id));
      app.shell.add(chat, inLab ? "main" : "right", { rank: 650 });
      void chat.open();
    } else if (agent.runtime_state === "stopped" || agent.runtime_state === "failed") {
      void chat.open(); // "Restart & open" with its chat already open: start it again there
    }
    app.shell.activateById(chat.id);
    recentChat = chat;
    return chat;
  };

  const kill = async (agent: AgentInfo): Promise<void> => {
    const answer = await showDialog({
      title: `Kill ${agent.name}?`,
      body: "Its kernel stops (a running turn ends). Its session and history stay; Open starts it again.",
      buttons: [Dialog.cancelButton(), Dialog.warnButton({ label: "Kill" })],
    });
    if (!answer.button.accept) return;
    await directory.api.kill(agent.id);
    await directory.refresh();
  };

  const panel = new AgentsPanel(directory, PageConfig.getOption("serverRoot") || "", {
    open: (agent) => void openChat(agent),
    kill,
    create: async (request) => {
      const agent = await directory.api.create(request);
      await directory.refresh();
      openChat(agent);
    },
    label: () => label,
    pickFolder: async () => {
      if (docManager === null) return null;
      const result = await FileDialog.getExistingDirectory({
        manager: docManager,
        title: "Folder the agent works in",
      });
      const picked = result.value?.[0];
      return result.button.accept && picked ? picked.path : null;
    },
  });
  panel.title.icon = shardIcon;
  app.shell.add(panel, "left", { rank: 650 });

  /** The agent of the current shard notebook (adopted into the registry once its kernel
   * started: wait for the kernel, then for the registry to list it). */
  const notebookAgent = async (): Promise<AgentInfo | undefined> => {
    const session = tracker?.currentWidget?.sessionContext;
    if (!session) return undefined;
    await session.ready;
    const kernel = session.session?.kernel;
    if (!kernel || kernel.name !== SHARD_KERNEL) return undefined;
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const found = directory.list.find((a) => a.kernel_id === kernel.id);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 250));
      await directory.refresh();
    }
    return undefined;
  };

  app.commands.addCommand(COMMANDS.newAgent, {
    label: "Shard: New agent",
    caption: "Create an agent in a folder of this server",
    execute: () => {
      app.shell.activateById(panel.id);
      panel.showForm();
    },
  });
  app.commands.addCommand(COMMANDS.dashboard, {
    label: "Shard: Dashboard",
    caption: "Every agent on this server, with status and usage",
    execute: () => {
      app.shell.activateById(panel.id);
      void directory.refresh();
    },
  });
  app.commands.addCommand(COMMANDS.openAgent, {
    label: "Shard: Open agent",
    caption: "Open the current Shard notebook's agent, or pick one",
    execute: async (args) => {
      await directory.refresh();
      const wanted = typeof args["agent"] === "string" ? args["agent"] : null;
      const agent = wanted
        ? directory.list.find((a) => a.id === wanted || a.name === wanted)
        : ((await notebookAgent()) ??
          (directory.list.length === 1 ? directory.list[0] : undefined));
      if (agent) return void openChat(agent);
      app.shell.activateById(panel.id);
    },
  });
  app.commands.addCommand(COMMANDS.stopAgent, {
    label: "Shard: Stop agent",
    caption: "Stop the running turn of the current agent (its kernel keeps running)",
    execute: () => {
      const current = app.shell.currentWidget;
      if (current instanceof AgentChat) return current.store.send(commands.abort());
      const kernel = tracker?.currentWidget?.sessionContext.session?.kernel;
      if (kernel && kernel.name === SHARD_KERNEL)
        kernelAgents.forKernel(kernel).command(commands.abort());
    },
  });
  app.commands.addCommand(COMMANDS.sendOutput, {
    label: "Send this output to the agent",
    caption: "Add this output to the agent's context for its next request (no turn starts)",
    execute: async () => {
      const node = app.contextMenuHitTest((n) => n.matches(OUTPUT_SELECTOR));
      const notebook = tracker?.currentWidget ?? null;
      const message = node ? outputInjection(node, notebook?.title.label ?? null) : null;
      if (message === null) return;
      const kernel = notebook?.sessionContext.session?.kernel;
      if (kernel && kernel.name === SHARD_KERNEL)
        return kernelAgents.forKernel(kernel).command(message); // the notebook's own agent
      const chat =
        recentChat && !recentChat.isDisposed ? recentChat : ([...chats.values()].pop() ?? null);
      if (chat) return chat.store.send(message);
      await showDialog({
        title: "No agent to send it to",
        body: "Open an agent (the Shard sidebar) first, then send the output again.",
        buttons: [Dialog.okButton()],
      });
    },
  });
  app.contextMenu.addItem({ command: COMMANDS.sendOutput, selector: OUTPUT_SELECTOR, rank: 40 });
  if (tracker) installCellActions(app, { tracker, directory, docManager, openChat });
  if (tracker) offerWidgetCells(tracker);
  const inPalette = Object.values(COMMANDS).filter((c) => c !== COMMANDS.sendOutput);
  if (palette) for (const command of inPalette) palette.addItem({ command, category: CATEGORY });
  app.docRegistry.addWidgetExtension("Notebook", {
    createNew: (notebook: NotebookPanel) => {
      addAgentButton(app, notebook);
      addLiveStrip(notebook);
    },
  });
  openTerminalsInLab(app);
}

/** A terminal card's "Open in Lab": Lab's own terminal widget for that server terminal. */
function openTerminalsInLab(app: JupyterFrontEnd): void {
  document.addEventListener(OPEN_TERMINAL_EVENT, (event) => {
    const detail: unknown = event instanceof CustomEvent ? event.detail : null;
    const name = isRecord(detail) && typeof detail["name"] === "string" ? detail["name"] : "";
    if (!name || !app.commands.hasCommand("terminal:open")) return;
    event.preventDefault();
    void app.commands.execute("terminal:open", { name });
  });
}

/** "Agent" in a Shard notebook's toolbar: the live view of its agent, which every tab can open. */
function addAgentButton(app: JupyterFrontEnd, notebook: NotebookPanel): void {
  const button = plainToolbarButton({
    className: "shard-agent-button",
    label: "Agent",
    icon: shardIcon,
    tooltip: "Open this notebook's agent: the live transcript and prompts, in every tab",
    onClick: () => {
      app.shell.activateById(notebook.id);
      void app.commands.execute(COMMANDS.openAgent);
    },
  });
  const update = (): void => {
    const kernel = notebook.sessionContext.session?.kernel;
    const name = kernel?.name ?? notebook.sessionContext.kernelPreference.name;
    button.setHidden(name !== SHARD_KERNEL);
  };
  notebook.toolbar.insertAfter("spacer", "shardAgent", button);
  notebook.sessionContext.kernelChanged.connect(update);
  void notebook.sessionContext.ready.then(update);
  update();
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: "shard-jupyterlab:plugin",
  description: "Shard agents: the sidebar, chat tabs and palette commands.",
  autoStart: true,
  optional: [INotebookTracker, ICommandPalette, IDocumentManager],
  activate,
};

const inlineCompletion: JupyterFrontEndPlugin<void> = {
  id: "shard-jupyterlab:inline-completion",
  description: "Shard's inline (ghost-text) completion in notebooks and editors.",
  autoStart: true,
  requires: [ICompletionProviderManager],
  activate: (_app: JupyterFrontEnd, manager: ICompletionProviderManager) =>
    manager.registerInlineProvider(new ShardInlineProvider()),
};

export default [plugin, diskSyncPlugin, inlineCompletion];
