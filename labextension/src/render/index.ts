// Shard's renderer module: RenderDescriptors, permission and ui dialogs — shared by the
// anywidget bundle and (later) the JupyterLab extension. Everything builds DOM nodes from text.
export { renderDescriptor, renderDescriptors, RENDERERS } from "./descriptors/index";
export { renderMarkdown } from "./markdown";
export { renderJson, jsonText } from "./json-text";
export { safeHttpUrl, safeLink } from "./safe-url";
export { PermissionDialogView, describeResolution } from "./dialogs/permission-dialog";
export type { GrantScope, PermissionAnswer, PermissionDecision } from "./dialogs/permission-dialog";
export { UiDialogView } from "./dialogs/ui-dialog";
export type { UiAnswer, UiValue } from "./dialogs/ui-dialog";
