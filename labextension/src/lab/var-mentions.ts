// `@var:NAME` in the chat composer: a variable in the open notebook's own running kernel becomes
// context for the prompt, named with its source ("@var:df from frame.ipynb"). The kernel runs
// only Shard's fixed summariser (SUMMARISER: type, shape, dtypes and head() for a DataFrame,
// a truncated repr otherwise) as a user expression of a silent execute request: no history, no
// execution count, nothing of the user's code run but the variable's own repr/head. A busy or
// dead kernel, no notebook, or a missing variable is a clear message and nothing is sent.
import type { INotebookTracker, NotebookPanel } from "@jupyterlab/notebook";
import type { Kernel } from "@jupyterlab/services";
import type { AgentStore } from "../client/agent-store";
import { isRecord, isString } from "../render/guards";
import * as commands from "../widget/commands";
import { SHARD_KERNEL } from "./kernel-agents";

const MENTION = /(^|[\s(])@var:([A-Za-z_][A-Za-z0-9_]*)/g;
export const MAX_MENTIONS = 8;
const ANSWER_MS = 5_000;

/** Run in the notebook's kernel with `ns` (its globals) and `name` bound; sets `result`. */
export const SUMMARISER = `
def _summary(ns, name, limit=3000):
    if name not in ns:
        return {"ok": False, "error": "missing"}
    value = ns[name]
    kind = type(value)
    module = getattr(kind, "__module__", "") or ""
    qual = kind.__qualname__ if module in ("", "builtins") else module + "." + kind.__qualname__
    lines = ["type: " + qual]
    try:
        shape = getattr(value, "shape", None)
        if isinstance(shape, tuple):
            lines.append("shape: " + repr(shape))
        top = module.split(".")[0]
        if top == "pandas" and kind.__name__ == "DataFrame":
            lines.append("dtypes:\\n" + value.dtypes.to_string())
            lines.append("head():\\n" + value.head().to_string())
        elif top == "pandas" and kind.__name__ == "Series":
            lines.append("dtype: " + str(value.dtype))
            lines.append("head():\\n" + value.head().to_string())
        else:
            if top == "numpy":
                lines.append("dtype: " + str(getattr(value, "dtype", "")))
            elif hasattr(kind, "__len__"):
                try:
                    lines.append("len: " + str(len(value)))
                except Exception:
                    pass
            text = repr(value)
            if len(text) > limit:
                text = text[:limit] + " ... (" + str(len(text) - limit) + " more characters)"
            lines.append("repr: " + text)
    except Exception as exc:
        lines.append("(the summary stopped: " + type(exc).__name__ + ": " + str(exc)[:200] + ")")
    text = "\\n".join(lines)
    return {"ok": True, "text": text if len(text) <= 8000 else text[:8000] + "\\n... (cut)"}


class _Json:
    def __init__(self, data):
        self.data = data

    def _repr_json_(self):
        return self.data


result = _Json(_summary(ns, name))
`;

/** The user expression: the summariser in a namespace of its own (the user's stays as it was). */
export function summaryExpression(name: string): string {
  return `(lambda g: (exec(${JSON.stringify(SUMMARISER)}, g), g['result'])[1])({'ns': globals(), 'name': ${JSON.stringify(name)}})`;
}

/** Lists the names the kernel's user namespace holds that start with `start`, as IPython's
 * `%who` does (no `_` names, none of the shell's own `user_ns_hidden`, no modules), each with
 * its type's name; run as a user expression like the summariser, the user's namespace untouched. */
export function namesExpression(start: string): string {
  return (
    `(lambda ns, hidden, start: type('_Json', (), {'_repr_json_': lambda self: ` +
    `{'names': sorted([[n, type(v).__name__] for n, v in ns.items() ` +
    `if n.startswith(start) and not n.startswith('_') and n not in hidden ` +
    `and type(v).__name__ != 'module'])[:${MAX_NAMES}]}})())` +
    `(globals(), getattr(globals().get('get_ipython', lambda: None)(), 'user_ns_hidden', {}), ` +
    `${JSON.stringify(start)})`
  );
}
const MAX_NAMES = 500;
const SHOWN_NAMES = 20;
const NAMES_FRESH_MS = 3_000;

type VarName = { name: string; type: string };
let asked: { kernel: Kernel.IKernelConnection; at: number; names: Promise<VarName[]> } | null =
  null;

async function askNames(kernel: Kernel.IKernelConnection): Promise<VarName[]> {
  const future = kernel.requestExecute(
    {
      code: "",
      silent: true,
      store_history: false,
      allow_stdin: false,
      user_expressions: { shard: namesExpression("") },
    },
    true,
  );
  const late = new Promise<null>((resolve) => setTimeout(() => resolve(null), ANSWER_MS));
  const reply = await Promise.race([future.done.catch(() => null), late]);
  const value = reply?.content.status === "ok" ? reply.content.user_expressions["shard"] : null;
  const data = isRecord(value) && isRecord(value["data"]) ? value["data"] : null;
  const answer = data ? data["application/json"] : null;
  const names = isRecord(answer) && Array.isArray(answer["names"]) ? answer["names"] : [];
  return names
    .filter((pair): pair is [string, string] => Array.isArray(pair) && isString(pair[0]))
    .map(([name, type]) => ({ name, type: String(type) }));
}

/** The variables of the open notebook's kernel whose name starts with `start`, for the `@var:`
 * completion list; an empty list when there is no idle, connected kernel to ask. The kernel is
 * asked once for every name and the list kept for a few seconds, so each keystroke of a name
 * filters it (a request per keystroke would find the kernel busy with the one before). */
export async function variableNames(
  start: string,
  tracker: INotebookTracker | null = notebooks,
): Promise<VarName[]> {
  const kernel = tracker?.currentWidget?.sessionContext.session?.kernel ?? null;
  if (!/^[A-Za-z0-9_]*$/.test(start)) return [];
  if (kernel === null || kernel.name === SHARD_KERNEL || kernel.connectionStatus !== "connected")
    return [];
  const fresh = asked !== null && asked.kernel === kernel && Date.now() - asked.at < NAMES_FRESH_MS;
  if (!fresh) {
    if (kernel.status !== "idle") return [];
    asked = { kernel, at: Date.now(), names: askNames(kernel) };
  }
  const names = (await asked?.names) ?? [];
  return names.filter((v) => v.name.startsWith(start)).slice(0, SHOWN_NAMES);
}

/** The distinct `@var:NAME`s of a prompt, in order. */
export function varMentions(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(MENTION)) {
    const name = match[2] ?? "";
    if (name && !names.includes(name)) names.push(name);
  }
  return names;
}

export interface VarContext {
  readonly name: string;
  readonly label: string;
  readonly text: string;
  /** the context's kind in the log (default "variable") */
  readonly kind?: "variable" | "file" | "output";
}

export type MentionOutcome =
  | { readonly ok: true; readonly contexts: VarContext[] }
  | { readonly ok: false; readonly message: string };

function notebookName(panel: NotebookPanel): string {
  return panel.context.path.split("/").pop() ?? panel.context.path;
}

async function summarise(
  kernel: Kernel.IKernelConnection,
  name: string,
  where: string,
): Promise<VarContext | string> {
  const future = kernel.requestExecute(
    {
      code: "",
      silent: true,
      store_history: false,
      allow_stdin: false,
      user_expressions: { shard: summaryExpression(name) },
    },
    true,
  );
  const late = new Promise<null>((resolve) => setTimeout(() => resolve(null), ANSWER_MS));
  const reply = await Promise.race([future.done.catch(() => null), late]);
  if (reply === null)
    return `the kernel of ${where} did not answer in ${ANSWER_MS / 1000} s: @var:${name} was not summarised`;
  const value = reply.content.status === "ok" ? reply.content.user_expressions["shard"] : null;
  const data = isRecord(value) && isRecord(value["data"]) ? value["data"] : null;
  const answer = data ? data["application/json"] : null;
  if (isRecord(value) && value["status"] === "error")
    return `the summariser failed in ${where}'s kernel: ${String(value["ename"] ?? "")} ${String(value["evalue"] ?? "")}`.trim();
  if (!isRecord(answer)) return `the kernel of ${where} gave no summary of @var:${name}`;
  if (answer["ok"] !== true) return `there is no variable ${name} in ${where}'s kernel`;
  const text = isString(answer["text"]) ? answer["text"] : "";
  return { name, label: `@var:${name} from ${where}`, text };
}

let notebooks: INotebookTracker | null = null;

/** Where `@var:` looks: the notebook last focused (the plugin sets the tracker). */
export function setMentionNotebooks(tracker: INotebookTracker | null): void {
  notebooks = tracker;
}

export function mentionNotebooks(): INotebookTracker | null {
  return notebooks;
}

/** Each summary as context the agent logs (its reply awaited: then the prompt follows it);
 * null, or why one was not taken. */
export async function injectContexts(
  store: AgentStore,
  contexts: readonly VarContext[],
): Promise<string | null> {
  for (const context of contexts) {
    const message = commands.inject(context.text, context.kind ?? "variable", context.label);
    const answered = new Promise<string | null>((resolve) => {
      const timer = setTimeout(
        () => finish("the agent did not take the variable in time"),
        ANSWER_MS,
      );
      const onReply = (reply: unknown): void => {
        if (!isRecord(reply) || reply["command_id"] !== message.id) return;
        finish(reply["ok"] === true ? null : String(reply["message"] ?? "refused"));
      };
      const finish = (outcome: string | null): void => {
        clearTimeout(timer);
        store.off("msg:custom", onReply);
        resolve(outcome);
      };
      store.on("msg:custom", onReply);
    });
    store.send(message);
    const problem = await answered;
    if (problem !== null) return `${context.label} not sent: ${problem}`;
  }
  return null;
}

/** Summaries of every `@var:` in `text` from the current notebook's kernel, or why not. */
export async function resolveVarMentions(
  text: string,
  tracker: INotebookTracker | null = notebooks,
): Promise<MentionOutcome> {
  const names = varMentions(text);
  if (names.length === 0) return { ok: true, contexts: [] };
  if (names.length > MAX_MENTIONS)
    return { ok: false, message: `at most ${MAX_MENTIONS} @var: mentions go with one prompt` };
  const panel = tracker?.currentWidget ?? null;
  const kernel = panel?.sessionContext.session?.kernel ?? null;
  if (panel === null || kernel === null || kernel.name === SHARD_KERNEL)
    return {
      ok: false,
      message: "@var: needs an open notebook with a running kernel (click into it first)",
    };
  const where = notebookName(panel);
  if (kernel.status === "dead" || kernel.connectionStatus !== "connected")
    return {
      ok: false,
      message: `the kernel of ${where} is ${kernel.status}: start it again first`,
    };
  if (kernel.status === "busy")
    return {
      ok: false,
      message: `the kernel of ${where} is busy running a cell: send @var: once it is idle`,
    };
  const contexts: VarContext[] = [];
  for (const name of names) {
    const found = await summarise(kernel, name, where);
    if (typeof found === "string") return { ok: false, message: found };
    contexts.push(found);
  }
  return { ok: true, contexts };
}
