// One KernelAgent per kernel connection in this page, shared by every view of that agent (the
// chat view, the answer buttons of rendered permission prompts). The plugin configures it with
// the notebook tracker and the tab's identity; the mime renderers only ask it for the agent
// behind a DOM node, so a saved notebook with no kernel renders the same, without buttons.
import type { INotebookTracker, NotebookPanel } from "@jupyterlab/notebook";
import type { Kernel } from "@jupyterlab/services";
import { KernelAgent } from "../client/kernel-agent";
import { tabClientId } from "../client/identity";

export const SHARD_KERNEL = "shard";

class KernelAgents {
  private tracker: INotebookTracker | null = null;
  private label = "";
  private readonly agents = new Map<Kernel.IKernelConnection, KernelAgent>();

  configure(tracker: INotebookTracker | null, label: string): void {
    this.tracker = tracker;
    this.label = label;
  }

  /** The attached agent on this kernel connection (attached once, shared). */
  forKernel(kernel: Kernel.IKernelConnection): KernelAgent {
    let agent = this.agents.get(kernel);
    if (agent === undefined) {
      agent = new KernelAgent(kernel, { clientId: tabClientId(), label: this.label || "Lab" });
      this.agents.set(kernel, agent);
      const known = agent;
      kernel.disposed.connect(() => {
        known.dispose();
        this.agents.delete(kernel);
      });
      agent.attach();
    }
    return agent;
  }

  /** The notebook panel a rendered output sits in, if any. */
  panelOf(node: HTMLElement): NotebookPanel | null {
    return this.tracker?.find((panel) => panel.node.contains(node)) ?? null;
  }

  /** The agent of the `shard` kernel behind a rendered output, or null (no kernel, not shard). */
  forNode(node: HTMLElement): KernelAgent | null {
    const kernel = this.panelOf(node)?.sessionContext.session?.kernel ?? null;
    if (kernel === null || kernel.name !== SHARD_KERNEL) return null;
    return this.forKernel(kernel);
  }
}

export const kernelAgents = new KernelAgents();
