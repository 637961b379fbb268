// A shell command as coloured spans — the command words, options, strings, variables and the
// operators that chain commands stand out, so a person approving `bash` sees what runs. Text
// nodes only (the command is untrusted); it never has to parse, only to colour.
import { h } from "./dom";

const TOKEN =
  /(#[^\n]*)|('(?:[^'])*'?|"(?:\\.|[^"\\])*"?)|(\$\{[^}]*\}?|\$\(|\$\w+|\$[?!#@*$0-9])|(&&|\|\||;;|[|;&()<>`]|>>|\d?>&\d)|(\s+)|([^\s'"$|;&()<>`#]+)/g;

export type ShellTokenKind = "comment" | "string" | "var" | "op" | "space" | "cmd" | "opt" | "word";

export function shellTokens(command: string): [ShellTokenKind, string][] {
  const tokens: [ShellTokenKind, string][] = [];
  let expectCommand = true;
  for (const match of command.matchAll(TOKEN)) {
    const [text, comment, string, variable, op, space] = match;
    if (comment !== undefined) tokens.push(["comment", text]);
    else if (string !== undefined) tokens.push(["string", text]);
    else if (variable !== undefined) {
      tokens.push(["var", text]);
      if (text === "$(") {
        expectCommand = true; // a command substitution starts a command
        continue;
      }
    } else if (op !== undefined) {
      tokens.push(["op", text]);
      expectCommand = !/^\d?>|^</.test(op) || op === "`";
      continue;
    } else if (space !== undefined) {
      tokens.push(["space", text]);
      continue;
    } else if (expectCommand && !/^\w+=/.test(text)) tokens.push(["cmd", text]);
    else tokens.push([text.startsWith("-") ? "opt" : "word", text]);
    expectCommand = expectCommand && /^\w+=/.test(text); // VAR=x cmd: the command comes next
  }
  return tokens;
}

export function renderShell(command: string): HTMLElement {
  const code = h("code", { class: "language-bash shard-sh" });
  for (const [kind, text] of shellTokens(command))
    code.append(
      kind === "space" || kind === "word" ? text : h("span", { class: `shard-sh-${kind}` }, text),
    );
  return h("pre", { class: "shard-code" }, code);
}
