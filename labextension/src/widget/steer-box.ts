// A one-line input that steers the running turn: the message goes into its next model request,
// and the transcript shows the steer's receipt (admitted, or rejected when no turn took it).
import { button, h } from "../render/dom";

export function renderSteerBox(onSteer: (text: string) => void): HTMLElement {
  const input = h("input", {
    class: "shard-input shard-steer-input",
    attrs: {
      type: "text",
      placeholder: "Steer the agent (sent into its next request)…",
      "aria-label": "Steering message",
    },
  });
  const send = (): void => {
    const text = input.value.trim();
    if (!text) return;
    onSteer(text);
    input.value = "";
  };
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") send();
  });
  return h("div", { class: "shard-steer" }, input, button("Steer", send));
}
