// anywidget entry for shard_widgets.AgentDashboard.
import { renderDashboardView } from "../widget/dashboard-view";
import type { RenderProps } from "../widget/model";

export default {
  render(props: RenderProps) {
    return renderDashboardView(props);
  },
};
