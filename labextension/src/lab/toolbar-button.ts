// Shard's notebook toolbar buttons as plain <button> elements. JupyterLab's ToolbarButton renders
// a <jp-button> custom element (no role) carrying aria-pressed and aria-disabled, which axe-core
// reports as aria-allowed-attr, a critical violation; a real button needs neither.
import type { LabIcon } from "@jupyterlab/ui-components";
import { Widget } from "@lumino/widgets";

export interface PlainButtonOptions {
  readonly className: string;
  readonly label: string;
  readonly tooltip: string;
  readonly icon?: LabIcon;
  readonly onClick: () => void;
}

/** A toolbar item holding one <button> named by its visible label, styled as Lab's. */
export function plainToolbarButton(options: PlainButtonOptions): Widget {
  const widget = new Widget();
  widget.addClass("jp-ToolbarButton");
  widget.addClass("jp-Toolbar-item");
  const button = document.createElement("button");
  button.type = "button";
  button.className = `${options.className} jp-ToolbarButtonComponent jp-Button jp-mod-minimal`;
  button.title = options.tooltip;
  if (options.icon) {
    const icon = options.icon.element({ tag: "span", className: "jp-ToolbarButtonComponent-icon" });
    icon.setAttribute("aria-hidden", "true");
    button.append(icon);
  }
  const label = document.createElement("span");
  label.className = "jp-ToolbarButtonComponent-label";
  label.textContent = options.label;
  button.append(label);
  // the notebook's command-mode shortcuts must not take Enter or Space from the button
  button.setAttribute("data-lm-suppress-shortcuts", "true");
  button.addEventListener("click", (event) => {
    event.preventDefault();
    options.onClick();
  });
  widget.node.append(button);
  return widget;
}
