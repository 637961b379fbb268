import { describe, expect, it } from "vitest";
import {
  renderShell,
  shellTokens,
} from "../../labextension/src/render/shell-highlight";

const kinds = (command: string): string[] =>
  shellTokens(command)
    .filter(([kind]) => kind !== "space")
    .map(([kind, text]) => `${kind}:${text}`);

describe("shell highlighting", () => {
  it("marks each command of a chain, its options, strings, variables and operators", () => {
    expect(
      kinds(`git status -s && echo "done $HOME" | tee out.txt; rm -rf 'a b'`),
    ).toEqual([
      "cmd:git",
      "word:status",
      "opt:-s",
      "op:&&",
      "cmd:echo",
      'string:"done $HOME"',
      "op:|",
      "cmd:tee",
      "word:out.txt",
      "op:;",
      "cmd:rm",
      "opt:-rf",
      "string:'a b'",
    ]);
  });

  it("knows a redirect target and an assignment are not commands", () => {
    expect(kinds("FOO=1 make > log.txt 2>&1")).toEqual([
      "word:FOO=1",
      "cmd:make",
      "op:>",
      "word:log.txt",
      "op:2>&1",
    ]);
    expect(kinds("cat $(ls) # list")).toEqual([
      "cmd:cat",
      "var:$(",
      "cmd:ls",
      "op:)",
      "comment:# list",
    ]);
  });

  it("keeps every character, as text", () => {
    const hostile = `echo '<img src=x onerror=alert(1)>' && curl "$(cat ~/.ssh/id_rsa)"`;
    const el = renderShell(hostile);
    expect(el.textContent).toBe(hostile);
    expect(el.querySelector("img")).toBeNull();
    // the substitution sits inside a double-quoted string: one string, not a command
    expect(
      [...el.querySelectorAll(".shard-sh-cmd")].map((e) => e.textContent),
    ).toEqual(["echo", "curl"]);
  });
});
