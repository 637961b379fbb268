// The New agent form: folder (relative to the server root, with a folder picker), name, model,
// mode, headless policy, an agent definition, the skills it may use and the session's goal. Validation says what to
// fix; the registry's own errors are shown as it words them (e.g. "the name x is taken: choose
// another").
import { button, h } from "../render/dom";
import type { CreateAgent, ModelDefault } from "../client/registry-api";

export interface NewAgentActions {
  readonly pickFolder: () => Promise<string | null>;
  /** what an empty Model field means on this server (null: it cannot say) */
  readonly modelDefault?: () => Promise<ModelDefault | null>;
  readonly create: (request: CreateAgent) => Promise<void>;
  readonly cancel: () => void;
}

const POLICIES = [
  ["deny", "deny what needs an answer (default)"],
  ["allow_if_rule_matches", "allow only what a rule allows"],
  ["queue", "wait for someone to answer"],
] as const;

function field(label: string, control: HTMLElement, hint = ""): HTMLElement {
  return h(
    "label",
    { class: "shard-field" },
    h("span", { class: "shard-field-label" }, label),
    control,
    hint ? h("span", { class: "shard-field-hint" }, hint) : null,
  );
}

/** Joins the server root and a folder relative to it, refusing to climb out of the root. */
export function folderUnderRoot(root: string, folder: string): string | Error {
  const parts = folder.split("/").filter((p) => p && p !== ".");
  if (parts.includes("..")) return new Error("the folder must be inside the server's root");
  // no root known (a host without Lab's page config): relative, the server resolves it
  if (!root) return parts.length ? parts.join("/") : ".";
  const base = root.replace(/\/+$/, "");
  return parts.length ? `${base}/${parts.join("/")}` : base || "/";
}

/** What an empty Model field gives, in words: "empty: openai/x — the server's KERNEL_SHARD_MODEL". */
export function describeDefault(chosen: ModelDefault): string {
  if (chosen.source === "none")
    return `empty: no model — ${chosen.why}; each prompt then says how to configure one`;
  return `empty: ${chosen.model} — ${chosen.why}`;
}

export function renderNewAgentForm(root: string, actions: NewAgentActions): HTMLElement {
  const folder = h("input", {
    class: "shard-input shard-new-folder",
    attrs: { type: "text", placeholder: "(the server root)", "aria-label": "Folder" },
  });
  const name = h("input", {
    class: "shard-input shard-new-name",
    attrs: { type: "text", placeholder: "(from the folder)", "aria-label": "Name" },
  });
  const model = h("input", {
    class: "shard-input shard-new-model",
    attrs: {
      type: "text",
      placeholder: "(the server's default)",
      "aria-label": "Model",
      "aria-describedby": "shard-new-model-default",
    },
  });
  const modelHint = h("span", {
    class: "shard-field-hint shard-model-default",
    attrs: { id: "shard-new-model-default", "aria-live": "polite" },
  });
  void actions.modelDefault?.().then(
    (chosen) => {
      if (chosen === null) return;
      model.placeholder = chosen.source === "none" ? "(none configured)" : `(${chosen.model})`;
      modelHint.textContent = describeDefault(chosen);
    },
    (error: unknown) => (modelHint.textContent = `default unknown: ${String(error)}`),
  );
  const definition = h("input", {
    class: "shard-input shard-new-definition",
    attrs: { type: "text", placeholder: "(none)", "aria-label": "Agent definition" },
  });
  const skills = h("input", {
    class: "shard-input shard-new-skills",
    attrs: { type: "text", placeholder: "(every skill found)", "aria-label": "Skills" },
  });
  const goal = h("input", {
    class: "shard-input shard-new-goal",
    attrs: { type: "text", placeholder: "(none)", "aria-label": "Goal" },
  });
  const mode = h(
    "select",
    { class: "shard-input shard-new-mode", attrs: { "aria-label": "Mode" } },
    h("option", { attrs: { value: "" } }, "build, or the definition's"),
    h("option", { attrs: { value: "build" } }, "build"),
    h("option", { attrs: { value: "plan" } }, "plan (read-only)"),
  );
  const policy = h(
    "select",
    { class: "shard-input shard-new-policy", attrs: { "aria-label": "Headless policy" } },
    ...POLICIES.map(([value, text]) => h("option", { attrs: { value } }, text)),
  );
  const message = h("div", { class: "shard-form-message", attrs: { role: "alert" } });
  const browse = button(
    "Browse…",
    () => {
      void actions.pickFolder().then((picked) => {
        if (picked !== null) folder.value = picked;
      });
    },
    "shard-button-small shard-browse",
  );
  const submit = button("Create", () => void create(), "shard-button-primary shard-create");
  const create = async (): Promise<void> => {
    const cwd = folderUnderRoot(root, folder.value.trim());
    if (cwd instanceof Error) {
      message.textContent = cwd.message;
      return;
    }
    const skillNames = skills.value
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const request: CreateAgent = {
      cwd,
      headless_policy: policy.value as CreateAgent["headless_policy"],
      ...(mode.value ? { mode: mode.value } : {}),
      ...(name.value.trim() ? { name: name.value.trim() } : {}),
      ...(model.value.trim() ? { model: model.value.trim() } : {}),
      ...(definition.value.trim() ? { agent: definition.value.trim() } : {}),
      ...(skillNames.length ? { skills: skillNames } : {}),
      ...(goal.value.trim() ? { goal: goal.value.trim() } : {}),
    };
    submit.disabled = true;
    message.textContent = "Creating…";
    try {
      await actions.create(request);
      message.textContent = "";
    } catch (error) {
      message.textContent = error instanceof Error ? error.message : String(error);
    } finally {
      submit.disabled = false;
    }
  };
  const form = h(
    "form",
    { class: "shard-new-agent", attrs: { "aria-label": "New agent" } },
    field(
      "Folder",
      h("span", { class: "shard-folder-row" }, folder, browse),
      "relative to the server root",
    ),
    field("Name", name),
    field("Model", h("span", { class: "shard-model-row" }, model, modelHint)),
    field("Mode", mode),
    field("When nobody answers", policy),
    field("Agent definition", definition, "agents/NAME.md: its model, mode, tools and rules"),
    field("Skills", skills, "names, comma-separated"),
    field("Goal", goal, "the session's objective, one line (/goal)"),
    h(
      "div",
      { class: "shard-form-actions" },
      submit,
      button("Cancel", actions.cancel, "shard-button-small"),
    ),
    message,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault(); // Enter in a field: create, never a page load
    void create();
  });
  return form;
}
