// "Send this output to the agent": a notebook cell's output as context for an agent's next
// request (an `inject` command; no turn starts). The text is what the output shows, labelled
// with the notebook and the cell's prompt number so the agent and every client can tell it apart.
import * as commands from "../widget/commands";
import type { InjectMessage } from "../widget/commands";

export const OUTPUT_SELECTOR = ".jp-OutputArea-output";
/** Longer outputs are cut (with a note) so one output cannot crowd out the whole request. */
export const MAX_OUTPUT_CHARS = 100_000;

export function outputInjection(node: Element, notebook: string | null): InjectMessage | null {
  const shown = node instanceof HTMLElement && node.innerText ? node.innerText : node.textContent;
  let text = (shown ?? "").trim();
  if (!text) return null;
  if (text.length > MAX_OUTPUT_CHARS)
    text = `${text.slice(0, MAX_OUTPUT_CHARS)}\n… (${text.length - MAX_OUTPUT_CHARS} more characters not sent)`;
  // Out[N] when the output has an execution count; a display (an agent's transcript, say)
  // has none, so the cell's own prompt names it
  const number = (selector: string, scope: Element | null | undefined): string =>
    scope?.querySelector(selector)?.textContent?.trim().replace(/:$/, "") ?? "";
  const out = number(".jp-OutputPrompt", node.closest(".jp-OutputArea-child"));
  const cell = number(".jp-InputPrompt", node.closest(".jp-Cell"));
  const where = /\d/.test(out) ? `Out${out}` : /\d/.test(cell) ? `cell ${cell}` : "output";
  return commands.inject(text, "output", notebook ? `${notebook} ${where}` : where);
}
