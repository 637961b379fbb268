// anywidget entry for shard_widgets.PermissionDialog.
import type { RenderProps } from "../widget/model";
import { renderPermissionView } from "../widget/permission-view";

export default {
  render(props: RenderProps) {
    return renderPermissionView(props);
  },
};
