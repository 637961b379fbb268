"use strict";(self.rspackChunkshard_jupyterlab=self.rspackChunkshard_jupyterlab||[]).push([[190],{105(r,a,e){var o=e(126),d=e.n(o),s=e(719),t=(e.n(s))()(d());t.push([r.id,`/* Cell actions (Fix with Shard, Explain, Ask Shard), the proposed cell change they bring back, and
   images attached to the chat composer. */
.shard-cell-edit {
  border: 1px solid var(--shard-border, #d0d0d0);
  border-left: 3px solid var(--shard-accent, #1976d2);
  border-radius: 4px;
  padding: 6px 8px;
  display: flex;
  flex-direction: column;
  gap: 6px;
}
.shard-cell-edit-title {
  font-weight: 600;
}
.shard-cell-edit-summary {
  color: var(--shard-muted, #616161);
  white-space: pre-wrap;
}
.shard-cell-edit-actions {
  display: flex;
  gap: 6px;
}
.shard-cell-edit-actions:empty {
  display: none;
}
.shard-cell-edit[data-state="applied"] {
  border-left-color: var(--shard-success, #388e3c);
}
.shard-cell-edit[data-state="rejected"] {
  border-left-color: var(--shard-muted, #616161);
  opacity: 0.8;
}
.shard-cell-action-bar {
  display: flex;
  gap: 6px;
  padding: 2px 0 4px;
}
.shard-cell-action-bar .shard-button {
  font-size: var(--jp-ui-font-size0, 11px);
}
.jp-Cell > .shard-cell-action-bar {
  padding-left: calc(var(--jp-cell-collapser-width, 8px) + var(--jp-cell-prompt-width, 64px));
}
/* images pasted or dropped into the chat composer */
.shard-composer-images {
  display: flex;
  flex-wrap: wrap;
  gap: 6px;
  padding: 4px 0;
}
.shard-composer-image-item {
  position: relative;
  display: inline-flex;
  align-items: flex-start;
  gap: 2px;
}
.shard-composer-image {
  height: 48px;
  max-width: 120px;
  object-fit: contain;
  border: 1px solid var(--shard-border, #d0d0d0);
  border-radius: 3px;
}
`,""]),e.d(a,{},{A:t})},871(r,a,e){var o=e(126),d=e.n(o),s=e(719),t=e.n(s),i=e(105),n=t()(d());n.i(i.A),n.push([r.id,`/* Shard widgets and renderers. Colours come from JupyterLab's theme variables, with fallbacks
   for hosts that do not define them (classic Notebook, VS Code). */
.shard-widget {
  --shard-fg: var(--jp-ui-font-color1, #1f1f1f);
  --shard-muted: var(--jp-ui-font-color2, #616161);
  --shard-bg: var(--jp-layout-color1, #ffffff);
  --shard-bg-alt: var(--jp-layout-color2, #f3f3f3);
  --shard-border: var(--jp-border-color2, #d0d0d0);
  --shard-accent: var(--jp-brand-color1, #1976d2);
  --shard-info: var(--jp-info-color1, #0288d1);
  --shard-warn: var(--jp-warn-color1, #f57c00);
  --shard-error: var(--jp-error-color1, #d32f2f);
  --shard-success: var(--jp-success-color1, #388e3c);
  --shard-add-bg: rgba(56, 142, 60, 0.14);
  --shard-del-bg: rgba(211, 47, 47, 0.14);
  --shard-mono: var(--jp-code-font-family, ui-monospace, SFMono-Regular, Menlo, monospace);
  color: var(--shard-fg);
  font-family: var(--jp-ui-font-family, system-ui, sans-serif);
  font-size: var(--jp-ui-font-size1, 13px);
  line-height: 1.45;
}
.shard-widget pre,
.shard-widget code {
  font-family: var(--shard-mono);
  font-size: 12px;
}
.shard-widget pre {
  margin: 4px 0;
  white-space: pre-wrap;
  overflow-wrap: anywhere;
}

/* header, usage, steering */
.shard-header {
  display: flex;
  flex-wrap: wrap; /* a narrow panel (Notebook 7's side panel) wraps: Stop is never cut off */
  align-items: center;
  gap: 8px;
  padding: 4px 0 6px;
  border-bottom: 1px solid var(--shard-border);
}
.shard-tool-skill {
  border-left: 3px solid var(--jp-brand-color1, #1976d2);
}
.shard-ui-question .shard-dialog-actions {
  flex-direction: column;
  align-items: flex-start;
}
.shard-question-other {
  margin-bottom: 6px;
  min-width: 16em;
}
.shard-question-choices {
  display: flex;
  flex-direction: column;
  gap: 4px;
  margin-bottom: 6px;
}
.shard-question-choice {
  display: flex;
  gap: 6px;
  align-items: baseline;
  overflow-wrap: anywhere;
}
.shard-todos {
  margin: 4px 0 0;
  padding: 2px 8px;
  border-left: 3px solid var(--jp-success-color1, #388e3c);
}
.shard-todo-list {
  list-style: none;
  margin: 2px 0;
  padding: 0;
}
.shard-todo {
  display: flex;
  gap: 6px;
  overflow-wrap: anywhere;
}
.shard-todo-done .shard-todo-text {
  text-decoration: line-through;
  opacity: 0.7;
}
.shard-todo-in_progress .shard-todo-text {
  font-weight: 600;
}
.shard-goal {
  margin: 4px 0 0;
  padding: 2px 8px;
  border-left: 3px solid var(--jp-brand-color1, #1976d2);
  overflow-wrap: anywhere;
}
.shard-goal-label {
  font-weight: 600;
  margin-right: 6px;
}
.shard-diagnostics {
  margin: 4px 0 0;
  padding: 4px 8px 4px 22px;
  border-left: 3px solid var(--jp-warn-color1, #f57c00);
  font-size: 0.9em;
  color: var(--jp-ui-font-color1, inherit);
}
.shard-diagnostic {
  overflow-wrap: anywhere;
}
.shard-spacer {
  flex: 1;
}
.shard-dot {
  width: 8px;
  height: 8px;
  border-radius: 50%;
  background: var(--shard-success);
}
.shard-dot-busy {
  background: var(--shard-warn);
  animation: shard-pulse 1.2s infinite;
}
.shard-dot-error {
  background: var(--shard-error);
}
@keyframes shard-pulse {
  50% {
    opacity: 0.35;
  }
}
.shard-model,
.shard-status-text {
  color: var(--shard-muted);
}
.shard-modes {
  display: inline-flex;
  gap: 2px;
}
.shard-mode-current {
  font-weight: 600;
  border-color: var(--shard-accent);
}
.shard-transcript-box {
  position: relative;
}
.shard-new-activity {
  position: absolute;
  bottom: 8px;
  left: 50%;
  transform: translateX(-50%);
  z-index: 1;
  box-shadow: 0 1px 4px rgba(0, 0, 0, 0.25);
}
.shard-new-activity[hidden] {
  display: none;
}
.shard-button[data-shortcut]::after {
  content: attr(data-shortcut);
  margin-left: 6px;
  padding: 0 4px;
  border: 1px solid currentColor;
  border-radius: 3px;
  font-family: var(--shard-mono);
  font-size: 10px;
  opacity: 0.8;
}
.shard-dialog:focus-within {
  outline: 2px solid var(--shard-accent);
  outline-offset: 1px;
}
.shard-transcript {
  max-height: 70vh;
  overflow-y: auto;
  padding: 6px 0;
  display: flex;
  flex-direction: column;
  gap: 8px;
}
.shard-usage {
  display: flex;
  flex-wrap: wrap;
  gap: 4px 16px;
  color: var(--shard-muted);
  font-size: 12px;
  padding: 4px 0;
  border-top: 1px solid var(--shard-border);
}
.shard-context {
  display: inline-flex;
  align-items: center;
  gap: 6px;
}
.shard-gauge {
  display: inline-block;
  width: 90px;
  height: 6px;
  border-radius: 3px;
  background: var(--shard-bg-alt);
  overflow: hidden;
}
.shard-gauge-fill {
  display: block;
  height: 100%;
  background: var(--shard-info);
}
.shard-gauge-fill.shard-tone-warn {
  background: var(--shard-warn);
}
.shard-gauge-fill.shard-tone-error {
  background: var(--shard-error);
}
.shard-command-notice:not(:empty) {
  color: var(--shard-error);
  display: flex;
  gap: 8px;
  align-items: center;
}

/* controls */
.shard-button {
  font: inherit;
  padding: 2px 10px;
  border: 1px solid var(--shard-border);
  border-radius: 4px;
  background: var(--shard-bg);
  color: var(--shard-fg);
  cursor: pointer;
}
.shard-button:disabled {
  opacity: 0.6;
  cursor: default;
}
.shard-button-primary {
  background: var(--shard-accent);
  border-color: var(--shard-accent);
  color: #fff;
}
.shard-button-danger {
  border-color: var(--shard-error);
  color: var(--shard-error);
}
.shard-button-small {
  padding: 0 6px;
  font-size: 11px;
}
.shard-input {
  font: inherit;
  padding: 2px 6px;
  border: 1px solid var(--shard-border);
  border-radius: 4px;
  background: var(--shard-bg);
  color: var(--shard-fg);
}
.shard-badge {
  display: inline-block;
  padding: 0 6px;
  border-radius: 8px;
  font-size: 11px;
  background: var(--shard-bg-alt);
  color: var(--shard-muted);
}
.shard-demo {
  background: var(--shard-warn);
  color: #fff;
}

/* transcript items */
.shard-msg-role {
  font-size: 11px;
  font-weight: 600;
  color: var(--shard-muted);
}
.shard-msg-user .shard-msg-text {
  background: var(--shard-bg-alt);
  padding: 6px 8px;
  border-radius: 6px;
}
.shard-msg-assistant {
  padding: 0 2px;
}
.shard-cursor {
  animation: shard-pulse 1s infinite;
}
.shard-thinking summary {
  cursor: pointer;
  color: var(--shard-muted);
}
.shard-thinking-text {
  color: var(--shard-muted);
}
.shard-notice {
  padding: 4px 8px;
  border-left: 3px solid var(--shard-info);
}
.shard-tone-info {
  border-color: var(--shard-info);
}
.shard-tone-warn {
  border-color: var(--shard-warn);
  color: var(--shard-warn);
}
.shard-tone-error {
  border-color: var(--shard-error);
  color: var(--shard-error);
}
.shard-tone-success {
  border-color: var(--shard-success);
  color: var(--shard-success);
}

/* a call whose arguments still stream, for its first moments (tool-card.ts) */
.shard-tool.shard-tool-held {
  display: none;
}
.shard-tool {
  border: 1px solid var(--shard-border);
  border-radius: 6px;
  padding: 4px 8px;
}
.shard-tool-header {
  display: flex;
  align-items: baseline;
  gap: 8px;
}
.shard-tool-name {
  font-family: var(--shard-mono);
  font-weight: 600;
}
.shard-tool-preview {
  flex: 1;
  color: var(--shard-muted);
  font-family: var(--shard-mono);
  overflow: hidden;
  text-overflow: ellipsis;
  white-space: nowrap;
}
.shard-tool-status {
  font-size: 11px;
  color: var(--shard-muted);
}
.shard-tool-error,
.shard-tool-denied,
.shard-tool-aborted {
  color: var(--shard-error);
}
.shard-tool-done {
  color: var(--shard-success);
}
.shard-tool-awaiting_permission {
  color: var(--shard-warn);
}
.shard-tool-input summary {
  cursor: pointer;
  color: var(--shard-muted);
  font-size: 11px;
}
.shard-tool-result-error {
  color: var(--shard-error);
}
.shard-tool-image {
  max-width: 100%;
}

/* dialogs */
.shard-dialog {
  border: 1px solid var(--shard-warn);
  border-radius: 6px;
  padding: 6px 10px;
  background: var(--shard-bg);
}
.shard-dialog-closed {
  border-color: var(--shard-border);
}
.shard-dialog-title {
  font-weight: 600;
}
.shard-dialog-actions {
  display: flex;
  flex-wrap: wrap;
  gap: 8px;
  align-items: center;
  padding: 4px 0;
}
.shard-always,
.shard-deny-group {
  display: inline-flex;
  flex-wrap: wrap;
  gap: 6px;
  align-items: center;
  max-width: 100%;
}
.shard-always .shard-rule-caption {
  flex: 1 1 12em;
}
.shard-deny-group .shard-permission-reason {
  flex: 1 1 10em;
  min-width: 0;
}
.shard-rule-caption {
  font-size: 11px;
  color: var(--shard-muted);
}
.shard-permission-input {
  max-height: 240px;
  overflow: auto;
  background: var(--shard-bg-alt);
  padding: 4px 6px;
}
.shard-dialog-footer:empty {
  display: none;
}

/* descriptors */
.shard-renders {
  display: flex;
  flex-direction: column;
  gap: 4px;
}
.shard-markdown p {
  margin: 4px 0;
}
.shard-markdown code {
  background: var(--shard-bg-alt);
  padding: 0 3px;
  border-radius: 3px;
}
.shard-code,
.shard-json,
.shard-markdown-html {
  background: var(--shard-bg-alt);
  padding: 4px 6px;
  border-radius: 4px;
}
.shard-markdown-table,
.shard-kv {
  border-collapse: collapse;
}
.shard-markdown-table th,
.shard-markdown-table td,
.shard-kv th,
.shard-kv td {
  border: 1px solid var(--shard-border);
  padding: 1px 6px;
  text-align: left;
  vertical-align: top;
}
.shard-markdown-table td:not(:first-child),
.shard-kv td {
  overflow-wrap: anywhere; /* a long path breaks in a narrow panel instead of being cut off */
}
.shard-kv th {
  font-weight: 600;
  color: var(--shard-muted);
}
.shard-kv td {
  font-family: var(--shard-mono);
  white-space: pre-wrap;
}
.shard-link-blocked {
  text-decoration: underline dotted;
}
.shard-diff {
  border: 1px solid var(--shard-border);
  border-radius: 4px;
  overflow: hidden;
}
.shard-diff-header {
  display: flex;
  gap: 8px;
  align-items: center;
  padding: 2px 6px;
  background: var(--shard-bg-alt);
}
.shard-diff-path {
  font-family: var(--shard-mono);
  flex: 1;
}
.shard-diff-created {
  background: var(--shard-success);
  color: #fff;
}
.shard-diff-deleted {
  background: var(--shard-error);
  color: #fff;
}
.shard-diff-added {
  color: var(--shard-success);
}
.shard-diff-removed {
  color: var(--shard-error);
}
.shard-diff-body {
  font-family: var(--shard-mono);
  font-size: 12px;
  overflow-x: auto;
}
.shard-diff-line {
  white-space: pre;
  padding: 0 6px;
}
.shard-diff-add {
  background: var(--shard-add-bg);
}
.shard-diff-del {
  background: var(--shard-del-bg);
}
.shard-diff-hunk,
.shard-diff-meta {
  color: var(--shard-muted);
}
.shard-tree {
  font-family: var(--shard-mono);
  font-size: 12px;
}
.shard-tree-children {
  padding-left: 16px;
}
.shard-tree-dir {
  font-weight: 600;
}
.shard-tree-node > summary {
  cursor: pointer;
}
.shard-progress {
  display: flex;
  gap: 8px;
  align-items: center;
}
.shard-progress-figures {
  color: var(--shard-muted);
  font-size: 12px;
}
.shard-status {
  display: flex;
  gap: 6px;
  align-items: baseline;
}

/* dashboard */
.shard-dashboard-table {
  border-collapse: collapse;
  width: 100%;
}
.shard-dashboard-table th,
.shard-dashboard-table td {
  border-bottom: 1px solid var(--shard-border);
  padding: 3px 6px;
  text-align: left;
}
.shard-agent-id,
.shard-agent-cwd {
  font-family: var(--shard-mono);
  font-size: 11px;
  color: var(--shard-muted);
}
.shard-agent-cwd {
  max-width: 240px;
  overflow: hidden;
  text-overflow: ellipsis;
  white-space: nowrap;
}
.shard-agent-actions {
  white-space: nowrap;
}
.shard-agent-terminals {
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: 4px;
  margin: 2px 0 4px;
  font-size: var(--jp-ui-font-size0, 11px);
}
.shard-agent-terminals[hidden] {
  display: none;
}
.shard-agent-terminals-label {
  color: var(--jp-ui-font-color2, #616161);
}
.shard-agent-terminal-list {
  display: contents;
}
.shard-agent-actions .shard-button {
  margin-right: 4px;
}
.shard-num {
  text-align: right;
}
.shard-empty {
  color: var(--shard-muted);
  padding: 6px 0;
}

/* permission dialogs: the request, a preview, why; folded once answered */
.shard-permission-preview {
  max-height: 320px;
  overflow: auto;
  margin: 4px 0;
}
.shard-permission-why {
  margin: 4px 0;
  color: var(--shard-muted);
}
.shard-why-label {
  font-weight: 600;
}
.shard-rule-input {
  font-family: var(--shard-mono);
  min-width: min(14em, 100%);
}
.shard-folded-away {
  display: none !important;
}
.shard-dialog-closed,
.shard-dialog-unavailable {
  padding-top: 2px;
  padding-bottom: 2px;
}
.shard-permission-folded {
  margin: 2px 0;
  color: var(--shard-muted);
}
.shard-dot-stopped {
  background: var(--shard-muted);
}
.shard-dot-warn {
  background: var(--shard-warn);
}
.shard-dot-idle {
  background: var(--shard-success);
}

/* JupyterLab: the sidebar, chat tabs, the composer */
.shard-panel {
  display: flex;
  flex-direction: column;
  gap: 6px;
  padding: 8px;
  overflow-y: auto;
  background: var(--jp-layout-color1, #fff);
}
.shard-panel-header {
  display: flex;
  align-items: center;
  justify-content: space-between;
}
.shard-panel-title {
  font-weight: 600;
  text-transform: uppercase;
  font-size: 11px;
  letter-spacing: 0.04em;
}
.shard-panel-problem:empty {
  display: none;
}
.shard-panel-problem {
  color: var(--shard-error);
}
.shard-agent-list {
  list-style: none;
  margin: 0;
  padding: 0;
}
.shard-agent-item {
  padding: 6px 4px;
  border-bottom: 1px solid var(--shard-border);
}
.shard-agent-child {
  padding-left: 16px;
}
.shard-agent-name {
  white-space: pre;
}
.shard-agent-line {
  display: flex;
  align-items: center;
  gap: 6px;
}
.shard-agent-name {
  font-weight: 600;
  flex: 1;
  overflow: hidden;
  text-overflow: ellipsis;
}
.shard-agent-meta {
  color: var(--shard-muted);
  font-size: 11px;
  overflow-wrap: anywhere;
}
.shard-status-badge.shard-tone-busy {
  color: var(--shard-accent);
}
.shard-status-badge.shard-tone-warn {
  color: var(--shard-warn);
}
.shard-status-badge.shard-tone-error {
  color: var(--shard-error);
}
.shard-status-badge.shard-tone-stopped {
  color: var(--shard-muted);
}
.shard-new-agent {
  display: flex;
  flex-direction: column;
  gap: 6px;
  padding: 6px;
  border: 1px solid var(--shard-border);
  border-radius: 4px;
}
.shard-field {
  display: flex;
  flex-direction: column;
  gap: 2px;
}
.shard-field-label {
  font-weight: 600;
}
.shard-field-hint {
  color: var(--shard-muted);
  font-size: 11px;
}
.shard-folder-row,
.shard-form-actions,
.shard-composer-row {
  display: flex;
  gap: 6px;
}
.shard-folder-row .shard-input,
.shard-composer-row .shard-input {
  flex: 1;
}
.shard-form-message:empty {
  display: none;
}
.shard-chat {
  display: flex;
  flex-direction: column;
  padding: 8px 12px;
  background: var(--jp-layout-color1, #fff);
}
/* the chat tab: header, Stop and composer stay; only the transcript scrolls */
.shard-chat-heading {
  flex: none;
  margin: 0 24px 6px 0; /* clear of Notebook 7's collapse button */
  font-size: var(--jp-ui-font-size1, 13px);
  font-weight: 600;
  white-space: nowrap;
  overflow: hidden;
  text-overflow: ellipsis;
}
.shard-chat-view {
  flex: 1;
  min-height: 0;
  display: flex;
  flex-direction: column;
  overflow: hidden;
}
.shard-chat-view > .shard-agent {
  flex: 1;
  min-height: 0;
  display: flex;
  flex-direction: column;
}
.shard-chat-view .shard-header-slot,
.shard-chat-view .shard-usage-slot,
.shard-chat-view .shard-command-notice {
  flex: none;
}
.shard-chat-view .shard-transcript-box {
  flex: 1;
  min-height: 0;
  display: flex;
  flex-direction: column;
}
.shard-chat-view .shard-transcript {
  flex: 1;
  min-height: 0;
  max-height: none;
}
.shard-banner {
  display: flex;
  align-items: center;
  gap: 8px;
  padding: 6px 8px;
  margin-bottom: 6px;
  border-radius: 4px;
  background: var(--jp-warn-color3, #fff3e0);
}
.shard-composer {
  position: relative;
  border-top: 1px solid var(--shard-border);
  padding-top: 6px;
}
.shard-composer-input {
  resize: vertical;
  font-family: inherit;
}
.shard-steer-state:empty {
  display: none;
}
.shard-slash-menu {
  position: absolute;
  bottom: 100%;
  left: 0;
  margin: 0;
  padding: 2px 0;
  list-style: none;
  background: var(--jp-layout-color1, #fff);
  border: 1px solid var(--shard-border);
  border-radius: 4px;
  box-shadow: 0 2px 6px rgba(0, 0, 0, 0.15);
  z-index: 10;
  max-height: 240px;
  overflow-y: auto;
}
.shard-slash-item {
  padding: 2px 8px;
  cursor: pointer;
}
.shard-slash-item:hover,
.shard-slash-item-selected {
  background: var(--shard-bg-alt);
}
.shard-banner[hidden],
.shard-slash-menu[hidden] {
  display: none;
}
.shard-agent-cwd,
.shard-agent-facts {
  display: block;
  overflow: hidden;
  text-overflow: ellipsis;
  white-space: nowrap;
}

/* shell commands in approvals */
.shard-sh-cmd {
  font-weight: 700;
  color: var(--jp-mirror-editor-keyword-color, #008000);
}
.shard-sh-opt {
  color: var(--jp-mirror-editor-attribute-color, #00c);
}
.shard-sh-string {
  color: var(--jp-mirror-editor-string-color, #ba2121);
}
.shard-sh-var {
  color: var(--jp-mirror-editor-variable-2-color, #05a);
}
.shard-sh-op {
  font-weight: 700;
  color: var(--jp-mirror-editor-operator-color, #aa22ff);
}
.shard-sh-comment {
  font-style: italic;
  color: var(--jp-mirror-editor-comment-color, #408080);
}

/* Steers with their receipt, injected context, session titles, usage bars (issue 28) */
.shard-steer-status {
  margin-left: 6px;
  font-weight: normal;
  font-size: var(--jp-ui-font-size0, 11px);
  color: var(--jp-ui-font-color2);
}
.shard-steer-admitted .shard-steer-status {
  color: var(--jp-success-color1, #388e3c);
}
.shard-steer-rejected .shard-steer-status {
  color: var(--jp-error-color1, #d32f2f);
}
.shard-steer-superseded .shard-msg-text {
  text-decoration: line-through;
  opacity: 0.7;
}
.shard-command-item {
  border-left: 3px solid var(--shard-accent);
  background: var(--shard-bg-alt);
}
.shard-command-item.shard-command-failed {
  border-left-color: var(--shard-error);
}
.shard-command-error {
  color: var(--shard-error);
  white-space: pre-wrap;
}
.shard-command-by {
  color: var(--shard-muted);
}
.shard-context-item > summary {
  cursor: pointer;
}
.shard-context-item .shard-msg-text {
  max-height: 240px;
  overflow: auto;
}
.shard-agent-title {
  font-size: var(--jp-ui-font-size1, 12px);
  color: var(--jp-ui-font-color1);
  overflow: hidden;
  text-overflow: ellipsis;
  white-space: nowrap;
}
.shard-agent-diagnostics {
  margin: 2px 0;
  font-size: var(--jp-ui-font-size0, 11px);
}
.shard-agent-diagnostics > summary {
  cursor: pointer;
  display: inline-block;
}
.shard-usage-bar {
  height: 4px;
  margin: 3px 0;
  background: var(--jp-layout-color3, #e0e0e0);
  border-radius: 2px;
  overflow: hidden;
}
.shard-usage-fill {
  display: block;
  height: 100%;
  background: var(--jp-brand-color1, #1976d2);
}
.shard-usage-section {
  margin: 8px;
  font-size: var(--jp-ui-font-size1, 12px);
}
.shard-usage-history {
  width: 100%;
  border-collapse: collapse;
}
.shard-usage-key {
  white-space: nowrap;
  padding-right: 6px;
}
.shard-usage-cell {
  width: 100%;
}
/* the sidebar's workspace grants: a folder, then its rules each with Revoke */
.shard-grants-folder-name {
  font-weight: 600;
  margin-top: 4px;
  overflow: hidden;
  text-overflow: ellipsis;
  white-space: nowrap;
}
.shard-grants-list {
  list-style: none;
  margin: 2px 0 6px;
  padding: 0;
}
.shard-grant {
  display: flex;
  align-items: center;
  gap: 6px;
  padding: 2px 0;
}
.shard-grant-rule {
  overflow-wrap: anywhere;
}
.shard-grant-by {
  flex: 1;
  color: var(--jp-ui-font-color2, #616161);
  overflow: hidden;
  text-overflow: ellipsis;
  white-space: nowrap;
}

/* a Shard notebook's live strip: the running turn of its agent, when another tab started it */
.shard-notebook-live {
  /* the notebook's content header is a Lumino BoxLayout: it gives the strip its min height;
     a permission prompt with its diff and its buttons needs about 330 px */
  min-height: min(420px, 50vh);
  max-height: min(420px, 50vh);
  box-sizing: border-box;
  overflow: auto;
  margin: 4px 8px;
  padding: 6px 10px;
  border: 1px solid var(--shard-accent);
  border-radius: 6px;
  background: var(--jp-layout-color1, #fff);
}
.shard-live-title {
  font-weight: 600;
  font-size: 12px;
  margin-bottom: 4px;
}

/* Rewind and review (widget/rewind-view.ts, widget/review-view.ts) */
.shard-turn-actions,
.shard-rewind-bar {
  display: flex;
  gap: 4px;
  justify-content: flex-end;
}
.shard-turn-actions {
  opacity: 0.7;
}
.shard-msg-user:hover .shard-turn-actions,
.shard-turn-actions:focus-within {
  opacity: 1;
}
.shard-rewind-bar {
  padding: 2px 8px;
}
.shard-rewind-panel {
  max-height: 50vh;
  overflow: auto;
  margin: 4px 8px;
  padding: 6px;
  border: 1px solid var(--shard-border);
  border-radius: 4px;
  background: var(--shard-bg-alt);
}
.shard-rewind-title,
.shard-review-title {
  font-weight: 600;
}
.shard-rewind-scopes {
  margin: 4px 0;
  padding-left: 0;
  list-style: none;
}
.shard-rewind-scopes li {
  margin: 2px 0;
}
.shard-rewind-note,
.shard-review-note,
.shard-review-outputs {
  color: var(--shard-muted);
  font-size: 12px;
  padding: 2px 6px;
}
.shard-rewind-choices {
  display: flex;
  flex-wrap: wrap;
  gap: 4px;
  margin-top: 4px;
}
.shard-review-head {
  display: flex;
  justify-content: space-between;
  align-items: center;
  margin-bottom: 4px;
}
.shard-review-file {
  margin-bottom: 6px;
}
.shard-review-cell {
  border-top: 1px solid var(--shard-border);
}
.shard-review-cell-head,
.shard-review-hunk-head {
  display: flex;
  gap: 6px;
  align-items: center;
  padding: 0 6px;
}
.shard-review-cell-head {
  font-family: var(--shard-mono);
  font-size: 12px;
}
.shard-review-controls {
  margin-left: auto;
  display: inline-flex;
  gap: 4px;
  align-items: center;
  white-space: normal;
  font-family: var(--jp-ui-font-family, sans-serif);
}
.shard-review-accepted > .shard-diff-body,
.shard-review-reverted > .shard-diff-body {
  opacity: 0.5;
}
.shard-review-reverted .shard-diff-line {
  text-decoration: line-through;
}
.shard-review-error {
  color: var(--shard-error);
}
.shard-rewound {
  opacity: 0.5;
}

/* kind "terminal": a live screen, "Open in Lab" for a server terminal */
.shard-terminal {
  border: 1px solid var(--shard-border);
  border-radius: 4px;
  overflow: hidden;
}
.shard-terminal-head {
  display: flex;
  gap: 8px;
  align-items: center;
  padding: 2px 6px;
  background: var(--shard-bg-alt);
}
.shard-terminal-name {
  font-weight: 600;
}
.shard-terminal-state {
  color: var(--shard-muted);
  margin-left: auto;
}
.shard-terminal-running {
  font-weight: 600;
}
.shard-terminal-screen {
  margin: 0;
  padding: 4px 6px;
  font-family: var(--shard-mono);
  background: var(--shard-bg-alt);
  max-height: 24em;
  overflow: auto;
  white-space: pre;
}

/* kind "web_page": title, URL, the text folded */
.shard-web-page {
  border-left: 3px solid var(--shard-border);
  padding: 2px 8px;
  margin: 2px 0;
}
.shard-web-title {
  font-weight: 600;
}
.shard-web-url {
  font-size: 0.9em;
  overflow-wrap: anywhere;
}
.shard-hook-card {
  margin: 2px 0;
  padding: 2px 8px;
  border-left: 3px solid var(--shard-muted);
  font-size: 0.9em;
}
.shard-hook-card.shard-tone-warn,
.shard-hook-card.shard-tone-error {
  border-left-color: currentColor;
}
.shard-hook-event {
  font-weight: 600;
}
.shard-hook-facts,
.shard-hook-message {
  color: var(--shard-muted);
}
.shard-hook-reason {
  white-space: pre-wrap;
}

.shard-msg-images {
  display: flex;
  flex-wrap: wrap;
  gap: 6px;
  margin-top: 6px;
}

.shard-msg-image {
  min-width: 32px;
  min-height: 32px;
  max-width: 240px;
  max-height: 180px;
  border: 1px solid var(--jp-border-color2, #ccc);
  border-radius: 3px;
  object-fit: contain;
}

.shard-msg-image-gone {
  font-style: italic;
  color: var(--shard-muted);
}
/* the sidebar's workflow runs: name and state, steps, the agents it made, a pending question */
.shard-workflows {
  margin: 8px;
  font-size: var(--jp-ui-font-size1, 12px);
}
.shard-workflows-title {
  font-weight: 600;
  margin-bottom: 4px;
}
.shard-workflow {
  border: 1px solid var(--jp-border-color2, #ddd);
  border-radius: 4px;
  padding: 4px 6px;
  margin-bottom: 6px;
}
.shard-workflow-line {
  display: flex;
  align-items: center;
  justify-content: space-between;
  gap: 6px;
}
.shard-workflow-name {
  overflow: hidden;
  text-overflow: ellipsis;
  white-space: nowrap;
}
.shard-workflow-steps,
.shard-workflow-agents {
  margin: 4px 0;
  padding-left: 18px;
}
.shard-workflow-step,
.shard-workflow-agent {
  overflow-wrap: anywhere;
}
.shard-step-kind {
  color: var(--jp-ui-font-color2, #666);
  margin-right: 6px;
}
.shard-workflow-agent {
  display: flex;
  justify-content: space-between;
  gap: 6px;
}
.shard-workflow .shard-badge {
  flex-shrink: 0;
  white-space: nowrap;
}
.shard-workflow-result {
  color: var(--jp-ui-font-color2, #666);
}
`,""]),e.d(a,{},{A:n})},719(r){r.exports=function(r){var a=[];return a.toString=function(){return this.map(function(a){var e="",o=void 0!==a[5];return a[4]&&(e+="@supports (".concat(a[4],") {")),a[2]&&(e+="@media ".concat(a[2]," {")),o&&(e+="@layer".concat(a[5].length>0?" ".concat(a[5]):""," {")),e+=r(a),o&&(e+="}"),a[2]&&(e+="}"),a[4]&&(e+="}"),e}).join("")},a.i=function(r,e,o,d,s){"string"==typeof r&&(r=[[null,r,void 0]]);var t={};if(o)for(var i=0;i<this.length;i++){var n=this[i][0];null!=n&&(t[n]=!0)}for(var l=0;l<r.length;l++){var p=[].concat(r[l]);o&&t[p[0]]||(void 0!==s&&(void 0===p[5]||(p[1]="@layer".concat(p[5].length>0?" ".concat(p[5]):""," {").concat(p[1],"}")),p[5]=s),e&&(p[2]&&(p[1]="@media ".concat(p[2]," {").concat(p[1],"}")),p[2]=e),d&&(p[4]?(p[1]="@supports (".concat(p[4],") {").concat(p[1],"}"),p[4]=d):p[4]="".concat(d)),a.push(p))}},a}},126(r){r.exports=function(r){return r[1]}},597(r,a,e){e.r(a);var o=e(559),d=e.n(o),s=e(204),t=e.n(s),i=e(672),n=e.n(i),l=e(596),p=e.n(l),h=e(691),c=e.n(h),f=e(696),g=e.n(f),x=e(871),m={};m.styleTagTransform=g(),m.setAttributes=p(),m.insert=n().bind(null,"head"),m.domAPI=t(),m.insertStyleElement=c(),d()(x.A,m);let u=x.A&&x.A.locals?x.A.locals:void 0;e.d(a,{},{default:u})},559(r){var a=[];function e(r){for(var e=-1,o=0;o<a.length;o++)if(a[o].identifier===r){e=o;break}return e}function o(r,o){for(var d={},s=[],t=0;t<r.length;t++){var i=r[t],n=o.base?i[0]+o.base:i[0],l=d[n]||0,p="".concat(n," ").concat(l);d[n]=l+1;var h=e(p),c={css:i[1],media:i[2],sourceMap:i[3],supports:i[4],layer:i[5]};if(-1!==h)a[h].references++,a[h].updater(c);else{var f=function(r,a){var e=a.domAPI(a);return e.update(r),function(a){a?(a.css!==r.css||a.media!==r.media||a.sourceMap!==r.sourceMap||a.supports!==r.supports||a.layer!==r.layer)&&e.update(r=a):e.remove()}}(c,o);o.byIndex=t,a.splice(t,0,{identifier:p,updater:f,references:1})}s.push(p)}return s}r.exports=function(r,d){var s=o(r=r||[],d=d||{});return function(r){r=r||[];for(var t=0;t<s.length;t++){var i=e(s[t]);a[i].references--}for(var n=o(r,d),l=0;l<s.length;l++){var p=e(s[l]);0===a[p].references&&(a[p].updater(),a.splice(p,1))}s=n}}},672(r){var a={};r.exports=function(r,e){var o=function(r){if(void 0===a[r]){var e=document.querySelector(r);if(window.HTMLIFrameElement&&e instanceof window.HTMLIFrameElement)try{e=e.contentDocument.head}catch(r){e=null}a[r]=e}return a[r]}(r);if(!o)throw Error("Couldn't find a style target. This probably means that the value for the 'insert' parameter is invalid.");o.appendChild(e)}},691(r){r.exports=function(r){var a=document.createElement("style");return r.setAttributes(a,r.attributes),r.insert(a,r.options),a}},596(r,a,e){r.exports=function(r){var a=e.nc;a&&r.setAttribute("nonce",a)}},204(r){r.exports=function(r){if("u"<typeof document)return{update:function(){},remove:function(){}};var a=r.insertStyleElement(r);return{update:function(e){var o,d,s;o="",e.supports&&(o+="@supports (".concat(e.supports,") {")),e.media&&(o+="@media ".concat(e.media," {")),(d=void 0!==e.layer)&&(o+="@layer".concat(e.layer.length>0?" ".concat(e.layer):""," {")),o+=e.css,d&&(o+="}"),e.media&&(o+="}"),e.supports&&(o+="}"),(s=e.sourceMap)&&"u">typeof btoa&&(o+="\n/*# sourceMappingURL=data:application/json;base64,".concat(btoa(unescape(encodeURIComponent(JSON.stringify(s))))," */")),r.styleTagTransform(o,a,r.options)},remove:function(){var r;null===(r=a).parentNode||r.parentNode.removeChild(r)}}}},696(r){r.exports=function(r,a){if(a.styleSheet)a.styleSheet.cssText=r;else{for(;a.firstChild;)a.removeChild(a.firstChild);a.appendChild(document.createTextNode(r))}}}}]);