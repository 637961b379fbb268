// anywidget entry for shard_widgets.AgentWidget.
import { renderAgentView } from "../widget/agent-view";
import type { InitializeProps, RenderProps } from "../widget/model";
import { syncTranscript } from "../widget/transcript-sync";

export default {
  initialize({ model }: InitializeProps) {
    return syncTranscript(model);
  },
  render(props: RenderProps) {
    return renderAgentView(props);
  },
};
