// The gateway's agent registry over REST (`/shard/api/agents`, PROTOCOL.md §3), through
// JupyterLab's server connection (token, XSRF and base URL handled there).
import { URLExt } from "@jupyterlab/coreutils";
import { ServerConnection } from "@jupyterlab/services";
import { isRecord, isString } from "../render/guards";
import type { AgentInfo } from "../wire";

export interface CreateAgent {
  readonly cwd: string;
  readonly name?: string;
  readonly model?: string;
  /** absent: build, or the agent definition's mode */
  readonly mode?: string;
  readonly headless_policy: "deny" | "allow_if_rule_matches" | "queue";
  /** an agent definition's name (agents/NAME.md) */
  readonly agent?: string;
  /** only these Agent Skills */
  readonly skills?: readonly string[];
  /** the session's goal (docs/GOALS.md) */
  readonly goal?: string;
}

/** The model an agent created without one gets, and why (`GET /shard/api/defaults`). */
export interface ModelDefault {
  readonly model: string;
  readonly source: "config" | "server" | "provider" | "none";
  readonly why: string;
  readonly demo: boolean;
}

/** One folder's "Always allow in this workspace" grants (`GET /shard/api/grants`). */
export interface WorkspaceGrants {
  readonly workspace: string;
  readonly grants: readonly { rule: string; granted_by: string; ts: number }[];
  /** the grants file cannot be read (then nothing in it applies) */
  readonly problem: string | null;
}

/** A gateway workflow run (`GET /shard/api/workflows/<run>`, docs/WORKFLOWS.md). */
export interface WorkflowAsk {
  readonly request_id: string;
  readonly n: number;
  readonly question: string;
  readonly choices: readonly string[];
  readonly allow_other: boolean;
  readonly multi: boolean;
}

export interface WorkflowStep {
  readonly n: number;
  readonly kind: "agent" | "log" | "ask";
  readonly asked: string;
  readonly result: string;
  readonly decided_by?: string | null;
}

export interface WorkflowRun {
  readonly id: string;
  readonly file: string;
  readonly state: "running" | "completed" | "failed" | "cancelled";
  readonly created: number;
  readonly error?: string | null;
  readonly result?: string | null;
  readonly agent_id?: string | null;
  readonly jobs?: readonly string[];
  readonly pending?: WorkflowAsk | null;
  readonly answered?: Record<string, string>;
  readonly steps?: readonly WorkflowStep[];
}

export class RegistryError extends Error {}

export class RegistryApi {
  constructor(
    private readonly settings: ServerConnection.ISettings = ServerConnection.makeSettings(),
  ) {}

  async list(): Promise<AgentInfo[]> {
    const data = await this.request("GET", "");
    return isRecord(data) && Array.isArray(data["agents"]) ? (data["agents"] as AgentInfo[]) : [];
  }

  create(body: CreateAgent): Promise<AgentInfo> {
    return this.request("POST", "", body) as Promise<AgentInfo>;
  }

  /** Starts the agent's kernel when it is stopped; the info names the running kernel. */
  attach(agentId: string): Promise<AgentInfo> {
    return this.request("POST", `/${encodeURIComponent(agentId)}/attach`) as Promise<AgentInfo>;
  }

  kill(agentId: string): Promise<AgentInfo> {
    return this.request("DELETE", `/${encodeURIComponent(agentId)}`) as Promise<AgentInfo>;
  }

  /** SHARD_HOME/usage.jsonl grouped (`GET /shard/api/usage`, what `shard usage` prints). */
  async usage(since = "7d", by = "day"): Promise<unknown[]> {
    const query = `?since=${encodeURIComponent(since)}&by=${encodeURIComponent(by)}`;
    const data = await this.request("GET", query, undefined, "shard/api/usage");
    return isRecord(data) && Array.isArray(data["rows"]) ? data["rows"] : [];
  }

  async modelDefault(): Promise<ModelDefault | null> {
    const data = await this.request("GET", "", undefined, "shard/api/defaults");
    const chosen = isRecord(data) ? data["model"] : null;
    return isRecord(chosen) && isString(chosen["model"]) && isString(chosen["why"])
      ? (chosen as unknown as ModelDefault)
      : null;
  }

  async workspaceGrants(): Promise<WorkspaceGrants[]> {
    const data = await this.request("GET", "", undefined, "shard/api/grants");
    return isRecord(data) && Array.isArray(data["workspaces"])
      ? (data["workspaces"] as WorkspaceGrants[])
      : [];
  }

  /** Revokes one workspace grant: no agent in that folder is allowed by it any more. */
  async revokeWorkspaceGrant(workspace: string, rule: string): Promise<void> {
    const query = `?workspace=${encodeURIComponent(workspace)}&rule=${encodeURIComponent(rule)}`;
    await this.request("DELETE", query, undefined, "shard/api/grants");
  }

  /** The gateway's workflow runs, newest first (`GET /shard/api/workflows`, no steps). */
  async workflows(): Promise<WorkflowRun[]> {
    const data = await this.request("GET", "", undefined, "shard/api/workflows");
    return isRecord(data) && Array.isArray(data["runs"]) ? (data["runs"] as WorkflowRun[]) : [];
  }

  /** One run with its steps. */
  workflow(runId: string): Promise<WorkflowRun> {
    const path = `/${encodeURIComponent(runId)}`;
    return this.request("GET", path, undefined, "shard/api/workflows") as Promise<WorkflowRun>;
  }

  /** Answers a run's pending `wf.ask`; refused (not a choice, already answered) with why. */
  async answerWorkflow(
    runId: string,
    requestId: string,
    value: readonly string[],
    label: string,
  ): Promise<void> {
    const body = { request_id: requestId, value, label: label.slice(0, 80) || "a client" };
    const path = `/${encodeURIComponent(runId)}/answer`;
    await this.request("POST", path, body, "shard/api/workflows");
  }

  private async request(
    method: string,
    path: string,
    body?: object,
    base = "shard/api/agents",
  ): Promise<unknown> {
    const url = URLExt.join(this.settings.baseUrl, base) + path;
    const init: RequestInit = { method };
    if (body !== undefined) init.body = JSON.stringify(body);
    let response: Response;
    try {
      response = await ServerConnection.makeRequest(url, init, this.settings);
    } catch (error) {
      throw new RegistryError(`the Jupyter server did not answer (${String(error)})`);
    }
    const text = await response.text();
    const data: unknown = text ? JSON.parse(text) : null;
    if (!response.ok) {
      const message =
        isRecord(data) && isString(data["message"]) ? data["message"] : response.statusText;
      throw new RegistryError(
        response.status === 404 && path === "" ? "this server has no Shard extension" : message,
      );
    }
    return data;
  }
}
