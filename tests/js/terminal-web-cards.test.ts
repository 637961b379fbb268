import { describe, expect, it, vi } from "vitest";
import { renderDescriptor } from "../../labextension/src/render/index";
import { OPEN_TERMINAL_EVENT } from "../../labextension/src/render/descriptors/terminal";

const terminal = {
  kind: "terminal",
  version: 1,
  terminal_id: "t1",
  name: "repl",
  command: "python3 -i",
  state: "running",
  screen: ">>> print(6*7)\n42\n>>>",
};

describe("terminal", () => {
  it("shows the screen as text, its name, command and state", () => {
    const el = renderDescriptor({ ...terminal, server_terminal: null });
    expect(el.className).toBe("shard-render shard-render-terminal");
    expect(el.querySelector("pre.shard-terminal-screen")?.textContent).toBe(
      ">>> print(6*7)\n42\n>>>",
    );
    expect(el.querySelector(".shard-terminal-name")?.textContent).toBe(
      "t1 · repl",
    );
    expect(el.querySelector(".shard-terminal-state")?.textContent).toBe(
      "running",
    );
    expect(el.querySelector("button.shard-terminal-open")).toBeNull();
  });

  it("offers Open in Lab for a server terminal and lets Lab take the click", () => {
    const el = renderDescriptor({
      ...terminal,
      server_terminal: "shard_a1_t1_9f",
    });
    document.body.appendChild(el);
    const opened = vi.spyOn(window, "open").mockImplementation(() => null);
    const names: string[] = [];
    const lab = (event: Event): void => {
      names.push((event as CustomEvent<{ name: string }>).detail.name);
      event.preventDefault();
    };
    document.addEventListener(OPEN_TERMINAL_EVENT, lab);
    const open = el.querySelector<HTMLButtonElement>(
      "button.shard-terminal-open",
    );
    expect(open?.textContent).toBe("Open in Lab");
    open?.click();
    expect(names).toEqual(["shard_a1_t1_9f"]);
    expect(opened).not.toHaveBeenCalled();
    document.removeEventListener(OPEN_TERMINAL_EVENT, lab);
    open?.click(); // no Lab on this page: Lab's terminal URL in a new tab
    expect(opened).toHaveBeenCalledWith(
      "/lab/terminals/shard_a1_t1_9f",
      "_blank",
      "noopener",
    );
    opened.mockRestore();
    el.remove();
  });

  it("offers no button for a name Lab's routes would not take", () => {
    const el = renderDescriptor({ ...terminal, server_terminal: "../api/x" });
    expect(el.querySelector("button.shard-terminal-open")).toBeNull();
  });
});

describe("web_page", () => {
  it("shows the title, a safe link and the text folded", () => {
    const el = renderDescriptor({
      kind: "web_page",
      url: "https://docs.python.org/3/",
      title: "Python docs",
      text: "Welcome",
    });
    expect(el.querySelector(".shard-web-title")?.textContent).toBe(
      "Python docs",
    );
    const link = el.querySelector<HTMLAnchorElement>(".shard-web-url a");
    expect(link?.href).toBe("https://docs.python.org/3/");
    expect(link?.rel).toBe("noopener noreferrer");
    const fold = el.querySelector("details.shard-web-text");
    expect(fold?.hasAttribute("open")).toBe(false);
    expect(fold?.querySelector("pre")?.textContent).toBe("Welcome");
  });

  it("never links a URL that is not http(s)", () => {
    const el = renderDescriptor({
      kind: "web_page",
      url: "javascript:alert(1)",
    });
    expect(el.querySelector("a")).toBeNull();
    expect(el.querySelector(".shard-web-title")?.textContent).toBe(
      "javascript:alert(1)",
    );
  });
});
